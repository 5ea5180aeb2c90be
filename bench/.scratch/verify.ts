import { verifyReferenceSql } from '../verify-sql.ts'
import { postgresRunner } from '../database.ts'
const url = 'postgres://postgres@127.0.0.1:5432/pingward_bench'
const r = postgresRunner(url)
const [read] = await r.query("select u.id from users u where email = 'bench-0000@example.com'")
const [write] = await r.query("select u.id from users u where email = 'bench-0099@example.com'")
const ids = (await r.query('select id from monitors where user_id = $1 order by created_at', [read.id])).map((x) => x.id)
await r.close()
await verifyReferenceSql(url, { readUserId: read.id, readKey: '', writeUserId: write.id, writeKey: '', monitorIds: ids })
console.log('ok')
