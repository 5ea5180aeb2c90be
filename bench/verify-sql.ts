// Checks that the reference server sends the very statements Pingward sends: runs the repository
// functions of the benchmarked routes (the list whole and paged) through a postgres.js client that records the SQL text it is given.
import { systemAudit } from '../src/domain/audit.ts'
import postgres from 'postgres'
import { drizzle } from 'drizzle-orm/postgres-js'
import * as schema from '../src/db/schema.ts'
import type { Database } from '../src/db/client.ts'
import { listOwnedChecks } from '../src/repositories/checks.ts'
import { listMonitorPage, listMonitors } from '../src/monitors/repository.ts'
import { createMonitor, deleteMonitor, findMonitor } from '../src/monitors/service.ts'
import { withMonitorDefaults, type CreateMonitor } from '../src/monitors/schema.ts'
import { CHECKS_SQL, INSERT_SQL, LIST_SQL, MONITOR_SQL, PAGE_LIMIT, PAGE_SQL, POST_BODY } from './reference-sql.ts'
import type { Seeded } from './seed.ts'

/** Throws, naming the route, when a reference statement differs from what the repositories send. */
export async function verifyReferenceSql (url: string, seeded: Seeded): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} })
  let sent: string[] = []
  // Every statement reaches postgres.js through unsafe(), drizzle's prepared hot reads too; a transaction's
  // through the unsafe() of the client that begin() hands its callback.
  const recording = <T extends object>(sqlClient: T): T => new Proxy(sqlClient, {
    get: (target, property, receiver) => {
      const value = Reflect.get(target, property, receiver) as (...a: unknown[]) => unknown
      if (property === 'unsafe') return (query: string, ...rest: unknown[]) => { sent.push(query); return value.call(target, query, ...rest) }
      if (property === 'begin') {
        return (...args: unknown[]) => {
          const work = args.pop() as (tx: object) => unknown
          return value.call(target, ...args, (tx: object) => work(recording(tx)))
        }
      }
      return value
    },
  })
  const db = drizzle({ client: recording(client), schema }) as unknown as Database
  const capture = async (run: () => Promise<unknown>) => {
    sent = []
    await run()
    return sent
  }
  try {
    const id = seeded.monitorIds[0]
    const expected: Array<[string, string, string[]]> = [
      ['GET /monitors/{id}/checks', CHECKS_SQL, await capture(() => listOwnedChecks(db, { keyId: seeded.readKeyId }, id, { limit: 100 }))],
      ['GET /monitors/{id}', MONITOR_SQL, await capture(() => findMonitor(db, { keyId: seeded.readKeyId }, id))],
      ['GET /monitors', LIST_SQL, await capture(() => listMonitors(db, { keyId: seeded.readKeyId }))],
      [`GET /monitors?limit=${PAGE_LIMIT}`, PAGE_SQL, await capture(() => listMonitorPage(db, { keyId: seeded.readKeyId }, { limit: PAGE_LIMIT }))],
    ]
    let createdId = ''
    const inserted = await capture(async () => {
      createdId = (await createMonitor(db, { keyId: seeded.writeKeyId }, withMonitorDefaults(POST_BODY as CreateMonitor), { now: new Date(), audit: systemAudit('bench'), allowPrivateTargets: true })).id
    })
    await deleteMonitor(db, seeded.writeUserId, createdId, new Date(), systemAudit('bench'))
    expected.push(['POST /monitors', INSERT_SQL, inserted])
    for (const [route, reference, statements] of expected) {
      if (!statements.includes(reference)) {
        throw new Error(`bench/reference-sql.ts is out of date for ${route}: Pingward sends\n${statements.join('\n')}\n` +
          `but the reference sends\n${reference}`)
      }
    }
  } finally {
    await client.end({ timeout: 5 })
  }
}
