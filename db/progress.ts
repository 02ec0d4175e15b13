/**
 * Reports progress of long data work (seeding, indexing, validating a data file), so a CLI
 * can show a bar. Called every few thousand records, never per record.
 */
export type ProgressReporter = (
  phase: 'generating' | 'indexing' | 'validating',
  done: number,
  total: number,
) => void

/** How many records pass between two reports. */
export const PROGRESS_STEP = 5000
