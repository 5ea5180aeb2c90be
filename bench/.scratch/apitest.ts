import { mkdirSync } from 'node:fs'
import { runApiBench, type Endpoint } from '../api-bench.ts'
import { postgresRunner } from '../database.ts'
const url = 'postgres://postgres@127.0.0.1:5432/pingward_bench'
const r = postgresRunner(url)
const [meta] = await r.query('select seeded from bench_meta')
await r.close()
const seeded = typeof meta.seeded === 'string' ? JSON.parse(meta.seeded) : meta.seeded
mkdirSync('/tmp/bw/logs', { recursive: true })
const res = await runApiBench({
  database: { DATABASE_URL: url }, seeded, endpoints: (process.env.EP ?? 'checks,monitor,list,create').split(',') as Endpoint[],
  connections: 50, durationSeconds: Number(process.env.DUR ?? 10), warmupSeconds: 3, rounds: Number(process.env.ROUNDS ?? 2), logDir: '/tmp/bw/logs',
  cpuProfDir: process.env.PROF, log: console.log,
})
for (const [e, v] of Object.entries(res)) {
  const rps = (xs: any[]) => xs.reduce((a, x) => a + x.requests, 0) / xs.reduce((a, x) => a + x.durationSeconds, 0)
  const p99 = (xs: any[]) => xs.reduce((a, x) => a + x.latencyMs.p99, 0) / xs.length
  console.log(e, 'ratio rps', (rps(v.pingward) / rps(v.reference)).toFixed(3), 'p99 ratio', (p99(v.pingward) / p99(v.reference)).toFixed(2))
}
