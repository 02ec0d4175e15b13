import {
  browserBench,
  browserTables,
  fullSettings,
  profileLines,
  shortSettings,
} from './browser.js'
import { table } from './harness.js'
const results = await browserBench(process.argv.includes('--short') ? shortSettings : fullSettings)
const t = browserTables(results)
console.log(table(t.requestHeader, t.requestRows))
console.log(t.startLine)
console.log(t.heapLine)
if (t.infoRows.length) console.log(table(t.infoHeader, t.infoRows))
for (const profile of results.profiles) console.log(profileLines(profile).join('\n'))
