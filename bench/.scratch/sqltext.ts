import { openDatabase } from '../../src/db/client.ts'
import { monitors, checks, apiKeys } from '../../src/db/schema.ts'
import { and, desc, eq, isNull, gt, or } from 'drizzle-orm'
const h = await openDatabase({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', DATA_DIR: 'x' })
const db = h.db
console.log(db.select().from(checks).where(and(eq(checks.monitorId, 'x'), undefined)).orderBy(desc(checks.checkedAt), desc(checks.id)).limit(100).toSQL())
console.log(db.select().from(monitors).where(and(eq(monitors.id, 'a'), eq(monitors.userId, 'b'), isNull(monitors.deletedAt))).toSQL())
console.log(db.insert(monitors).values({ userId: 'u', name: 'n', url: 'u', monitorType: 'site', method: 'GET', expectedStatus: 200, intervalMinutes: 5, isActive: true, timeoutSeconds: 10, failureThreshold: 2, recoveryThreshold: 1, status: 'pending', nextCheckAt: new Date(), createdAt: new Date(), updatedAt: new Date() }).returning().toSQL())
await h.close()
