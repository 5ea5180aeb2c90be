// Public pages are answered from snapshots: every file of a page (HTML, JSON, feeds, badges) made at once, with its
// strong ETag and its gzip and brotli forms. A snapshot is rebuilt when its organization changes (the change feed, or
// a write in this process) and at least every MAX_AGE_MS, at most once per MIN_INTERVAL_MS; while the database is
// down, the last one keeps answering. With a shared store, the processes take turns building and adopt each other's.
import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import type { Database } from '../db/client.ts'
import { componentBadge, historyAtom, maintenanceIcs, pageBadge, pageShields, summaryJson, type PageLinks } from './feeds.ts'
import { renderPage } from './public-page.ts'
import { findPublishedPage, type PageRow } from './repository.ts'
import { loadPageView, type PageView } from './view.ts'

export const SNAPSHOT_TIMING = { maxAgeMs: 60_000, minIntervalMs: 1000 } as const
/** Past this many pages asked for, those found missing are forgotten: unknown slugs cannot fill the memory. */
const MAX_ENTRIES = 10_000

export interface Artifact { body: Buffer, gzip: Buffer, br: Buffer, type: string, etag: string }

/** The page's files by name: `index.html`, `summary.json`, `history.atom`, `maintenance.ics`, `badge.svg`, `badge.json`. */
export interface Snapshot {
  page: PageRow
  view: PageView
  files: Map<string, Artifact>
  /** Made when first asked for: a component's `svg` or `json` badge. */
  componentFile (id: string, format: 'svg' | 'json'): Artifact | undefined
}

/** Where a page is asked for: its slug under /status/, or its custom domain. */
export type PageKey = { slug: string } | { domain: string }

interface Entry {
  snapshot?: Snapshot
  /** Built and found no published page: a 404 until the next change or build. */
  missing: boolean
  stale: boolean
  /** Made stale by a write in this process: the next request waits for the new snapshot. */
  awaited: boolean
  attemptedAt: number
  building?: Promise<Snapshot | undefined>
  orgId?: string
  /** With a shared store: the counter once a change was known; only a copy stamped above it will do. */
  need?: Promise<number | undefined>
  /** The shared counter's value when what this entry holds was built. */
  stamp?: number
}

/** Where a snapshot came from: built here from the database, or adopted from another process's copy. */
export type SnapshotSource = 'database' | 'shared'

/** Another process is building the page: the last snapshot answers until its copy is there. */
const KEEP = Symbol('keep')

/** A page as one process built it; without `page`, it found no published page there. */
export interface SharedCopy {
  /** The shared counter, read before the build's first statement. */
  stamp: number
  builtAtMs: number
  page?: PageRow
  view?: PageView
  files?: Map<string, Artifact>
}

export interface SharedSnapshotStore {
  /** The counter's next value: a copy stamped above a value read once a change was known shows that change. */
  tick (): Promise<number>
  /** Pages whose copies a change made stale: the counter's next value, which their next copy must pass, for every process. */
  supersede (names: string[]): Promise<number>
  /** The page's copy, and the value its copy must pass (0 when no change was heard). */
  load (name: string): Promise<{ copy?: SharedCopy, need: number }>
  save (name: string, copy: SharedCopy): Promise<void>
  /** Whether this process may build the page now, no other being at it; the claim lapses after CLAIM_MS. */
  claim (name: string): Promise<boolean>
  release (name: string): Promise<void>
}

/** The change feed as snapshots use it: an organization's changes, batched. */
export interface ChangeSource { subscribe (owner: string, listener: () => void): () => void }

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'summary.json': 'application/json; charset=utf-8',
  'status.json': 'application/json; charset=utf-8',
  'history.atom': 'application/atom+xml; charset=utf-8',
  'maintenance.ics': 'text/calendar; charset=utf-8',
  'badge.svg': 'image/svg+xml; charset=utf-8',
  'badge.json': 'application/json; charset=utf-8',
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

function artifact (text: string, type: string): Artifact {
  const body = Buffer.from(text)
  return {
    body,
    // Middle levels: a 100-component page's 1.2 MB compress in about 25 ms (brotli's 11 would take seconds).
    gzip: gzipSync(body, { level: 6 }),
    br: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    type,
    etag: etagOf(body),
  }
}

/** Every file of a page, as text, for a view and its links. */
function renderFiles (view: PageView, links: PageLinks): Map<string, string> {
  const summary = summaryJson(view, links) as { page: unknown, status: unknown }
  return new Map([
    ['index.html', renderPage(view, links)],
    ['summary.json', JSON.stringify(summary)],
    ['status.json', JSON.stringify({ page: summary.page, status: summary.status })],
    ['history.atom', historyAtom(view, links)],
    ['maintenance.ics', maintenanceIcs(view, links)],
    ['badge.svg', pageBadge(view)],
    ['badge.json', pageShields(view)],
  ])
}

/** A snapshot of these files; a component's badge is made when first asked for. */
function snapshotOf (page: PageRow, view: PageView, files: Map<string, Artifact>): Snapshot {
  const badges = new Map<string, Artifact>()
  return {
    page,
    view,
    files,
    componentFile (id, format) {
      const name = `${id}.${format}`
      let file = badges.get(name)
      const component = file ? undefined : view.components.find((candidate) => candidate.row.id === id)
      if (component) {
        file = artifact(componentBadge(component, format), TYPES[`badge.${format}`])
        badges.set(name, file)
      }
      return file
    },
  }
}

const keyName = (key: PageKey) => 'slug' in key ? `slug:${key.slug}` : `domain:${key.domain}`

export class PageSnapshots {
  private readonly entries = new Map<string, Entry>()
  private readonly organizations = new Map<string, { keys: Set<string>, unsubscribe: () => void }>()
  private readonly db: Database
  private readonly clock: () => Date
  private readonly publicUrl: string
  private readonly subscriptions: boolean
  private readonly onError: (error: unknown) => void
  private readonly shared?: SharedSnapshotStore
  private readonly onSnapshot?: (source: SnapshotSource) => void
  private readonly timing: { maxAgeMs: number, minIntervalMs: number }
  private changes?: ChangeSource

  constructor (options: {
    db: Database
    clock: () => Date
    publicUrl: string
    subscriptions: boolean
    onError: (error: unknown) => void
    shared?: SharedSnapshotStore
    onSnapshot?: (source: SnapshotSource) => void
    /** Tests shorten it; the service keeps SNAPSHOT_TIMING. */
    timing?: { maxAgeMs: number, minIntervalMs: number }
  }) {
    this.timing = options.timing ?? SNAPSHOT_TIMING
    this.db = options.db
    this.subscriptions = options.subscriptions
    this.clock = options.clock
    this.publicUrl = options.publicUrl
    this.onError = options.onError
    this.shared = options.shared
    this.onSnapshot = options.onSnapshot
  }

  /** Rebuilds on the organizations' changes heard from the database, whoever made them. */
  listen (changes: ChangeSource): void {
    this.changes = changes
  }

  /** Something the organization's pages show changed in this process. */
  changed (orgId: string): void {
    // A page not yet built for this organization (made or published just now) may be any missing one.
    const missing = [...this.entries].filter(([, entry]) => entry.missing)
    for (const [, entry] of missing) {
      entry.stale = true
      entry.awaited = true
    }
    const need = this.markStale(orgId, true, missing.map(([name]) => name))
    for (const [, entry] of missing) entry.need = need
  }

  linksOf (key: PageKey): PageLinks {
    const path = 'slug' in key ? `/status/${key.slug}` : ''
    return { base: 'slug' in key ? `${this.publicUrl}${path}` : `https://${key.domain}`, path, subscriptions: this.subscriptions }
  }

  /** The page's snapshot, built or rebuilt as due; undefined when no published page answers there. Throws when none can be made. */
  async get (key: PageKey): Promise<Snapshot | undefined> {
    const name = keyName(key)
    let entry = this.entries.get(name)
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES) this.forgetMissing()
      entry = { missing: false, stale: true, awaited: true, attemptedAt: -Infinity }
      this.entries.set(name, entry)
    }
    const age = performance.now() - entry.attemptedAt
    // A missing page is asked again after a second: it may have been published by another process.
    const fresh = !entry.stale && age < (entry.missing ? this.timing.minIntervalMs : this.timing.maxAgeMs)
    if (fresh) return entry.snapshot
    // A page that never built has nothing to answer with: it tries at once, however recent its last failure.
    const unbuilt = entry.snapshot === undefined && !entry.missing
    if (!entry.building && (entry.awaited || unbuilt || age >= this.timing.minIntervalMs)) this.build(key, entry)
    if (entry.building && (entry.awaited || entry.snapshot === undefined)) {
      try {
        return await entry.building
      } catch (error) {
        if (entry.snapshot) return entry.snapshot
        throw error
      }
    }
    return entry.snapshot
  }

  private build (key: PageKey, entry: Entry): void {
    entry.attemptedAt = performance.now()
    entry.stale = false
    const building = this.obtain(key, entry).then((snapshot) => {
      if (snapshot === KEEP) {
        entry.stale = true
        return entry.snapshot
      }
      entry.awaited = false
      entry.missing = snapshot === undefined
      if (snapshot) {
        entry.snapshot = snapshot
        this.follow(snapshot.page.orgId, keyName(key), entry)
      } else {
        entry.snapshot = undefined
      }
      return snapshot
    }, (error: unknown) => {
      // The last snapshot answers; the next request after MIN_INTERVAL_MS tries again.
      entry.stale = true
      entry.awaited = false
      this.onError(error)
      throw error
    }).finally(() => {
      if (entry.building === building) entry.building = undefined
    })
    building.catch(() => {})
    entry.building = building
  }

  /** The snapshot to answer with next: another process's copy when it shows what this entry needs, else built here. */
  private async obtain (key: PageKey, entry: Entry): Promise<Snapshot | undefined | typeof KEEP> {
    const shared = this.shared
    if (!shared) return this.make(key, entry.snapshot)
    const name = keyName(key)
    const need = entry.need
    const needed = need ? await need : entry.stamp ?? 0
    const met = () => { if (entry.need === need) entry.need = undefined }
    // The store cannot be reached: this process builds alone until it can.
    if (needed === undefined) {
      const snapshot = await this.make(key, entry.snapshot)
      met()
      entry.stamp = undefined
      return snapshot
    }
    const found = await shared.load(name).catch((error: unknown) => { this.onError(error) })
    const copy = found?.copy
    if (copy && copy.stamp > Math.max(needed, found.need) && Date.now() - copy.builtAtMs < this.timing.maxAgeMs) {
      met()
      entry.stamp = copy.stamp
      // Its age is the copy's: every process then refreshes on the builder's minute.
      entry.attemptedAt = performance.now() - Math.max(0, Date.now() - copy.builtAtMs)
      this.onSnapshot?.('shared')
      return copy.page && snapshotOf(copy.page, copy.view!, copy.files!)
    }
    const claimed = await shared.claim(name).catch((error: unknown) => { this.onError(error); return true })
    if (!claimed && entry.snapshot && !entry.awaited) return KEEP
    try {
      const stamp = await this.tick()
      const builtAtMs = Date.now()
      const snapshot = await this.make(key, entry.snapshot)
      met()
      entry.stamp = stamp
      if (stamp !== undefined) {
        const copy: SharedCopy = snapshot ? { stamp, builtAtMs, page: snapshot.page, view: snapshot.view, files: snapshot.files } : { stamp, builtAtMs }
        await shared.save(name, copy).catch((error: unknown) => { this.onError(error) })
      }
      return snapshot
    } finally {
      if (claimed) shared.release(name).catch((error: unknown) => { this.onError(error) })
    }
  }

  /** The shared counter's next value; undefined while the store cannot be reached (then this process builds alone). */
  private tick (): Promise<number | undefined> {
    return this.shared!.tick().catch((error: unknown) => {
      this.onError(error)
      return undefined
    })
  }

  /** A new snapshot, or `previous` when nothing it shows changed: its time and ETags stay, so copies stay current. */
  private async make (key: PageKey, previous: Snapshot | undefined): Promise<Snapshot | undefined> {
    const page = await findPublishedPage(this.db, key)
    if (!page) return undefined
    const view = await loadPageView(this.db, page, this.clock())
    const links = this.linksOf(key)
    if (previous) {
      const unchanged = renderFiles({ ...view, builtAt: previous.view.builtAt }, links)
      if ([...unchanged].every(([name, text]) => previous.files.get(name)?.etag === etagOf(Buffer.from(text)))) return { ...previous, page }
    }
    const files = new Map([...renderFiles(view, links)].map(([name, text]) => [name, artifact(text, TYPES[name])]))
    this.onSnapshot?.('database')
    return snapshotOf(page, view, files)
  }

  private follow (orgId: string, name: string, entry: Entry): void {
    if (entry.orgId !== undefined && entry.orgId !== orgId) this.organizations.get(entry.orgId)?.keys.delete(name)
    entry.orgId = orgId
    let organization = this.organizations.get(orgId)
    if (!organization) {
      const unsubscribe = this.changes?.subscribe(orgId, () => { this.markStale(orgId, false) }) ?? (() => {})
      organization = { keys: new Set(), unsubscribe }
      this.organizations.set(orgId, organization)
    }
    organization.keys.add(name)
  }

  private forgetMissing (): void {
    for (const [name, entry] of this.entries) if (entry.snapshot === undefined && !entry.building) this.entries.delete(name)
  }

  /** Marks the organization's pages stale; with a shared store, every process's next copy of them must show the change. */
  private markStale (orgId: string, awaited: boolean, alsoNames: string[] = []): Promise<number | undefined> | undefined {
    const names = [...this.organizations.get(orgId)?.keys ?? []]
    const need = this.shared?.supersede([...names, ...alsoNames]).catch((error: unknown) => {
      this.onError(error)
      return undefined
    })
    for (const name of names) {
      const entry = this.entries.get(name)
      if (!entry) continue
      entry.stale = true
      entry.need = need
      if (awaited) entry.awaited = true
    }
    return need
  }

  close (): void {
    for (const organization of this.organizations.values()) organization.unsubscribe()
    this.organizations.clear()
    this.entries.clear()
  }
}
