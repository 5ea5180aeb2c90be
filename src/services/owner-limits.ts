// The operator's limits on what one organization may hold, checked under its row lock so that simultaneous
// creates cannot pass a limit together.
import type { Database } from '../db/client.ts'
import { LimitReachedError } from '../domain/errors.ts'
import { countChannels, countLiveMonitors, lockOwner } from '../repositories/owner-holdings.ts'
import type { Owner } from '../repositories/owner.ts'

const LIMITS = {
  monitors: { count: countLiveMonitors, name: 'Monitor', one: 'monitor', many: 'monitors', setting: 'MAX_MONITORS_PER_OWNER' },
  channels: { count: countChannels, name: 'Notification channel', one: 'channel', many: 'channels', setting: 'MAX_CHANNELS_PER_OWNER' },
} as const

export type LimitedKind = keyof typeof LIMITS

/** The refusal of a create past the limit: which limit, how many, what to do. */
export function limitMessage (kind: LimitedKind, max: number): string {
  const limit = LIMITS[kind]
  return `${limit.name} limit reached: at most ${max} ${max === 1 ? limit.one : limit.many} per organization ` +
    `(the operator's ${limit.setting}); delete one to make room`
}

/** Runs `create` under the owner's row lock when they hold fewer than `max` of `kind` (0: no limit, no lock). */
export async function withinOwnerLimit<T> (
  db: Database, owner: Owner, kind: LimitedKind, max: number, create: (db: Database, owner: Owner) => Promise<T>
): Promise<T> {
  if (max === 0) return create(db, owner)
  return db.transaction(async (tx) => {
    const orgId = await lockOwner(tx, owner)
    // Counted after the lock, so this statement sees what a create that held it before committed.
    if (await LIMITS[kind].count(tx, orgId, max) >= max) throw new LimitReachedError(limitMessage(kind, max))
    return create(tx, { orgId })
  })
}
