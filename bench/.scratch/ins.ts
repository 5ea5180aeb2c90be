import { buildTestApp, makeUser } from '../../test/helper.ts'
import { createMonitor } from '../../src/repositories/monitors.ts'
const t = { teardown: () => {} }
const { app } = await buildTestApp(t)
const { user } = await makeUser(app)
try { console.log(await createMonitor(app.db, user.id, { name: 'x', url: 'https://e.com' } as any, new Date())) } catch (e) { console.log(e) }
process.exit(0)
