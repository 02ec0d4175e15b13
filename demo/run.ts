import { startDemoServer } from './server.js'

const port = Number(process.env.PORT ?? 5173)
try {
  const demo = await startDemoServer(port)
  console.log(`shop-sandbox demo: ${demo.url}`)
  console.log(
    '  the sandbox runs in the page (MSW service worker); try ?persist=1 or ?baseUrl=https://api.example.com',
  )
  process.once('SIGINT', () => void demo.close().then(() => process.exit(0)))
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code
  console.error(
    code === 'EADDRINUSE'
      ? `shop-sandbox demo: port ${port} is in use; pick another with PORT=5174 npm run demo`
      : `shop-sandbox demo: cannot start: ${(error as Error).message}`,
  )
  process.exit(1)
}
