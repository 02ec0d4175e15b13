import { startDemoServer } from './server.js'

const port = Number(process.env.PORT ?? 5173)
const demo = await startDemoServer(port)
console.log(`shop-sandbox demo: ${demo.url}`)
console.log(
  '  the sandbox runs in the page (MSW service worker); try ?persist=1 or ?baseUrl=https://api.example.com',
)
process.once('SIGINT', () => void demo.close().then(() => process.exit(0)))
