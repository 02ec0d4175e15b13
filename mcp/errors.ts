/** A refusal to tell the agent: an error result naming what is wrong (CONTRACT C6). */
export class ToolError extends Error {}
