import { createPostgresDatabase, postgresRunner } from '../database.ts'
import { seedPostgres } from '../seed.ts'
const scale = { name: process.argv[2] ?? 'full', users: 100, monitors: 10000, bigUserMonitors: 1000, checksPerMonitor: Number(process.argv[3] ?? 1000), days: 30 }
const t0 = Date.now()
const url = await createPostgresDatabase('postgres://postgres@127.0.0.1:5432/postgres', 'pingward_bench')
const runners = [postgresRunner(url), postgresRunner(url)]
const s = await seedPostgres(runners, scale, new Date(), console.log)
console.log(JSON.stringify({ ...s, monitorIds: s.monitorIds.length }), (Date.now() - t0) / 1000)
for (const r of runners) await r.close()
