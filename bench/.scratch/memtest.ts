import { postgresRunner } from '../database.ts'
import { startNode, freePort, waitForHttp } from '../processes.ts'
const url = 'postgres://postgres@127.0.0.1:5432/pingward_bench'
const db = postgresRunner(url)
const port = await freePort()
const t = startNode('bench/target-server.ts', { PORT: String(port) }, { logFile: '/tmp/bw/logs/t.log' })
await waitForHttp(`http://127.0.0.1:${port}/__stats`, t)
const start = new Date(Date.now() + 3000)
await db.exec(`update monitors m set url = 'http://127.0.0.1:${port}/m' || b.idx, is_active = true, status = 'up', next_check_at = '${start.toISOString()}'::timestamptz + (b.idx::float8 / 10000) * interval '60 seconds' from bench_monitors b where b.id = m.id`)
const w = startNode(process.env.SCRIPT ?? 'bench/.scratch/memworker.ts', { DATABASE_URL: url, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn' }, { onLine: (l) => console.log(l), nodeArgs: (process.env.NODEARGS ?? '').split(' ').filter(Boolean) })
await new Promise((r) => setTimeout(r, Number(process.env.SECS ?? 60) * 1000))
await w.stop(); await t.stop(); await db.close()
