// The process's one change feed: the database's notifications of what pages show (drizzle/0023_live_updates.sql),
// heard on one connection whoever wrote the change, gathered per owner and handed to that owner's subscribers (the
// dashboard's open pages) at most once per COALESCE_MS.
import { performance } from 'node:perf_hooks'
import fp from 'fastify-plugin'

/** The notifications' channel: drizzle/0023_live_updates.sql's triggers notify it. */
export const CHANGES_CHANNEL = 'pingward_changes'
/** An owner's subscribers hear at most this often: a busy fleet's checks reach an open page as one batch. */
export const COALESCE_MS = 1000

/**
 * What changed for an owner since the last batch: monitors', channels' and agent locations' ids (a token rotated, a
 * location deleted), `status` when what its status pages show changed (a page, component, report or maintenance
 * window); `everything` when some may be missed.
 */
export interface ChangeBatch { monitors: string[], channels: string[], locations: string[], status: boolean, everything: boolean }
type ChangeListener = (batch: ChangeBatch) => void

declare module 'fastify' {
  interface FastifyInstance {
    changes: ChangeFeed
  }
}

interface OwnerState {
  listeners: Set<ChangeListener>
  monitors: Set<string>
  channels: Set<string>
  locations: Set<string>
  status: boolean
  everything: boolean
  sentAt: number
  timer?: NodeJS.Timeout
}

/** The kinds of change that name an id, and the batch's list of each. */
const KINDS = { monitor: 'monitors', channel: 'channels', location: 'locations' } as const
type ChangeKind = keyof typeof KINDS | 'status'

/** A notification's payload, {owner, kind, id}; undefined for anything else. */
function parseChange (payload: string): { owner: string, kind: ChangeKind, id: string } | undefined {
  try {
    const change = JSON.parse(payload) as Record<string, unknown>
    const { owner, kind, id } = change
    if (typeof owner !== 'string' || typeof id !== 'string' || !(kind === 'status' || Object.hasOwn(KINDS, kind as string))) return undefined
    return { owner, kind: kind as ChangeKind, id }
  } catch {
    return undefined
  }
}

class ChangeFeed {
  private readonly owners = new Map<string, OwnerState>()

  /** Hands `listener` the owner's changes from now on; returns the unsubscribe. */
  subscribe (owner: string, listener: ChangeListener): () => void {
    let state = this.owners.get(owner)
    if (!state) {
      state = { listeners: new Set(), monitors: new Set(), channels: new Set(), locations: new Set(), status: false, everything: false, sentAt: -Infinity }
      this.owners.set(owner, state)
    }
    state.listeners.add(listener)
    return () => {
      state.listeners.delete(listener)
      if (state.listeners.size > 0 || this.owners.get(owner) !== state) return
      clearTimeout(state.timer)
      this.owners.delete(owner)
    }
  }

  /** A notification's payload: kept for its owner's next batch when anyone of theirs listens. */
  notified (payload: string): void {
    const change = parseChange(payload)
    const state = change && this.owners.get(change.owner)
    if (!change || !state) return
    if (change.kind === 'status') state.status = true
    else state[KINDS[change.kind]].add(change.id)
    this.schedule(state)
  }

  /** Notifications may have been lost: every subscriber is told that anything may have changed. */
  resync (): void {
    for (const state of this.owners.values()) {
      state.everything = true
      this.schedule(state)
    }
  }

  close (): void {
    for (const state of this.owners.values()) clearTimeout(state.timer)
    this.owners.clear()
  }

  private schedule (state: OwnerState): void {
    if (state.timer) return
    const wait = Math.max(0, state.sentAt + COALESCE_MS - performance.now())
    state.timer = setTimeout(() => this.flush(state), wait)
  }

  private flush (state: OwnerState): void {
    state.timer = undefined
    // A timer counts from the event loop's cached time, so it can fire a little early: wait the rest.
    if (performance.now() < state.sentAt + COALESCE_MS) return this.schedule(state)
    state.sentAt = performance.now()
    const batch: ChangeBatch = {
      monitors: [...state.monitors], channels: [...state.channels], locations: [...state.locations], status: state.status, everything: state.everything,
    }
    state.monitors.clear()
    state.channels.clear()
    state.locations.clear()
    state.status = false
    state.everything = false
    for (const listener of state.listeners) listener(batch)
  }
}

export default fp(async (app) => {
  const feed = new ChangeFeed()
  const stopListening = await app.database.listen(CHANGES_CHANNEL, (payload) => feed.notified(payload), () => feed.resync())
  app.decorate('changes', feed)
  // Not awaited: a stop never waits on the database, which closes the listening connection with the rest.
  app.addHook('onClose', async () => {
    feed.close()
    stopListening().catch(() => {})
  })
}, { name: 'changes', fastify: '5.x', dependencies: ['db'] })
