import { runCheckerBench } from '../checker-bench.ts'
import { postgresRunner } from '../database.ts'
const url = 'postgres://postgres@127.0.0.1:5432/pingward_bench'
const db = postgresRunner(url)
const r = await runCheckerBench({ databaseUrl: url, db, monitors: Number(process.env.N ?? 10000), warmupSeconds: Number(process.env.W ?? 30), measureSeconds: Number(process.env.M ?? 60), logDir: '/tmp/bw/logs', log: console.log })
console.log(JSON.stringify(r, null, 1))
await db.close()
