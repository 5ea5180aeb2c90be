// Creating a monitor: within the operator's limit of monitors per user.
import type { Database } from '../db/client.ts'
import { createMonitor } from '../repositories/monitors.ts'
import type { Owner } from '../repositories/owner.ts'
import type { Monitor, NewMonitor } from '../schemas/monitor.ts'
import { withinOwnerLimit } from './owner-limits.ts'

/** Creates the owner's monitor within the `maxMonitors` limit (0: no limit). */
export function createOwnedMonitor (
  db: Database, owner: Owner, input: NewMonitor, options: { now: Date, maxMonitors: number }
): Promise<Monitor> {
  return withinOwnerLimit(db, owner, 'monitors', options.maxMonitors, (tx, creator) => createMonitor(tx, creator, input, options.now))
}
