import { writeFile } from 'node:fs/promises'
import { openApiDocument } from '../shop/defaults.js'

/** `shop-sandbox openapi`: prints (or writes) the OpenAPI 3.1 document. */
export async function printOpenApi(baseUrl: string, output: string | undefined): Promise<void> {
  const text = `${JSON.stringify(openApiDocument({ baseUrl }), null, 2)}\n`
  if (!output) {
    // `shop-sandbox openapi | head` closes the pipe early: that is not an error.
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
    })
    process.stdout.write(text)
    return
  }
  await writeFile(output, text)
  console.error(`shop-sandbox: wrote ${output}`)
}
