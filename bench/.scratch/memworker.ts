// Like src/worker.ts, plus memory usage every 5 s.
import pino from 'pino'
import { loadConfig } from '../../src/config.ts'
import { openDatabase } from '../../src/db/client.ts'
import { startChecker } from '../../src/checker/index.ts'
const config = loadConfig()
const log = pino({ level: 'warn' })
const database = await openDatabase({ ...config, poolSize: 20 })
const checker = startChecker({ config, db: database.db, log })
const mb = (n: number) => Math.round(n / 1048576)
setInterval(() => { const m = process.memoryUsage(); console.log(JSON.stringify({ rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), ab: mb(m.arrayBuffers) })) }, 5000)
process.on('SIGTERM', async () => { await checker.stop(); await database.close(); process.exit(0) })
