// Custom domains (api-contract section 16): a page's domain is verified while the TXT record `_pingward.<domain>` says
// its `domain_txt_record`. The API looks at once; a sweep in every checker process looks at the unverified every minute
// and at the verified once a day, and a domain whose record is gone is unverified again.
import { Resolver } from 'node:dns/promises'
import type { FastifyBaseLogger } from 'fastify'
import { recordChange } from '../audit/service.ts'
import { atomically, type Database } from '../db/client.ts'
import { systemAudit, type AuditContext } from '../domain/audit.ts'
import { ConflictError } from '../domain/errors.ts'
import type { Clock } from '../runtime/clock.ts'
import { startPeriodic } from '../runtime/periodic.ts'
import { domainTxtRecord, presentPage } from './presenter.ts'
import { findPage, pagesWithDomainsDue, updatePage, type PageRow } from './repository.ts'

const SWEEP_MS = 60_000
const RECHECK_MS = 86_400_000
/** Lookups a sweep makes at once. */
const PARALLEL = 8
const SWEEP_AUDIT = systemAudit('custom domain check')

const recordName = (domain: string) => `_pingward.${domain}`

/** Each TXT record's strings joined; none when the name or its TXT records do not exist; `failure` when no answer came. */
async function lookUpTxt (name: string, servers: string[] | undefined): Promise<{ values: string[] } | { failure: string }> {
  // As a dns check asks (src/checker/probe-dns.ts): the configured resolvers, c-ares retrying once within the time.
  const resolver = new Resolver({ timeout: 2500, tries: 2 })
  if (servers !== undefined) resolver.setServers(servers)
  try {
    return { values: (await resolver.resolveTxt(name)).map((strings) => strings.join('')) }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { values: [] }
    return { failure: typeof code === 'string' ? code : String(error) }
  }
}

/** Records whether the record was seen, unless the page's domain changed since it was read; audited when that changes. */
async function settle (db: Database, audit: AuditContext, page: PageRow, seen: boolean, now: Date): Promise<{ row: PageRow, change?: 'verified' | 'unverified' } | undefined> {
  return atomically(db, async (tx) => {
    const current = await findPage(tx, page.orgId, page.id, 'lock')
    if (!current || current.customDomain !== page.customDomain) return undefined
    const wasVerified = current.domainVerifiedAt !== null
    if (!seen && !wasVerified) return { row: current }
    // Seen again, its time moves on: the daily look is due a day after the last sighting.
    const row = await updatePage(tx, current.id, { domainVerifiedAt: seen ? now : null })
    if (seen === wasVerified) return { row }
    await recordChange(tx, audit, {
      orgId: row.orgId,
      action: seen ? 'status_page.domain_verified' : 'status_page.updated',
      entityId: row.id,
      before: presentPage(current),
      after: presentPage(row),
      fields: ['domain_verified'],
      at: now,
    })
    return { row, change: seen ? 'verified' : 'unverified' }
  })
}

/** Looks at the page's TXT record now: the page, verified; a ConflictError saying what the record holds when it is not there. */
export async function verifyDomain (db: Database, who: { orgId: string, audit: AuditContext }, id: string, servers: string[] | undefined, now: Date): Promise<PageRow | undefined> {
  const page = await findPage(db, who.orgId, id)
  if (!page) return undefined
  if (page.customDomain === null) throw new ConflictError('The page has no custom_domain to verify')
  const name = recordName(page.customDomain)
  const answer = await lookUpTxt(name, servers)
  if ('failure' in answer) throw new ConflictError(`The TXT records of ${name} could not be looked up (${answer.failure}): try again later`)
  const wanted = domainTxtRecord(page)
  const settled = await settle(db, who.audit, page, answer.values.includes(wanted), now)
  if (!settled) throw new ConflictError('The page\'s custom_domain changed during the check: try again')
  if (settled.row.domainVerifiedAt !== null) return settled.row
  throw new ConflictError(answer.values.length === 0
    ? `${name} has no TXT record: publish one that says "${wanted}"`
    : `The TXT records of ${name} say ${answer.values.map((value) => JSON.stringify(value)).join(', ')}, not "${wanted}"`)
}

/** One sweep at `now`: returns how many domains became verified and unverified. */
export async function checkDomains (db: Database, options: { now: Date, servers?: string[], log: FastifyBaseLogger, signal?: AbortSignal }): Promise<{ verified: number, unverified: number }> {
  const due = await pagesWithDomainsDue(db, new Date(options.now.getTime() - RECHECK_MS))
  const changes = { verified: 0, unverified: 0 }
  for (let start = 0; start < due.length && !options.signal?.aborted; start += PARALLEL) {
    await Promise.all(due.slice(start, start + PARALLEL).map(async (page) => {
      const answer = await lookUpTxt(recordName(page.customDomain!), options.servers)
      // No answer changes nothing: the next sweep asks again.
      if ('failure' in answer) return
      const seen = answer.values.includes(domainTxtRecord(page))
      if (!seen && page.domainVerifiedAt === null) return
      const change = (await settle(db, SWEEP_AUDIT, page, seen, options.now))?.change
      if (change === undefined) return
      changes[change]++
      const fields = { pageId: page.id, domain: page.customDomain }
      if (change === 'verified') options.log.info(fields, 'status page custom domain verified')
      else options.log.warn(fields, 'status page custom domain unverified: its TXT record is gone')
    }))
  }
  return changes
}

/** Sweeps the custom domains every minute until the returned stop function is called. */
export function startDomainChecks (options: { db: Database, clock: Clock, log: FastifyBaseLogger, servers?: string[] }): () => Promise<void> {
  return startPeriodic({
    everyMs: SWEEP_MS,
    what: 'custom domain checks',
    log: options.log,
    task: (signal) => checkDomains(options.db, { now: options.clock(), servers: options.servers, log: options.log, signal }),
  })
}
