// The Hosts that are status pages' custom domains, as the router sees them: every domain a page claims, verified or not,
// kept in memory (read again on this process's writes and every REFRESH_MS), so that routing by Host costs no statement.
import type { IncomingMessage } from 'node:http'
import type { Database } from '../db/client.ts'
import { claimedDomains } from './repository.ts'

/** The route constraint of the routes that answer on custom domains, and only there. */
export const ON_CUSTOM_DOMAIN = { customDomain: 'claimed' } as const
const REFRESH_MS = 10_000

/** A host name as custom domains are stored: lowercase, without a trailing dot. */
export const customDomainOf = (hostname: string) => hostname.toLowerCase().replace(/\.$/, '')

export class CustomDomainHosts {
  /** This server's own names (PUBLIC_URL's, the loopback's): never a custom domain. */
  readonly serverHosts: ReadonlySet<string>
  private claimed: ReadonlySet<string> = new Set()
  private db?: Database
  private reading?: Promise<void>
  private readAgain = false
  private timer?: NodeJS.Timeout

  constructor (publicUrl: string) {
    this.serverHosts = new Set(['localhost', '127.0.0.1', '::1', '[::1]', new URL(publicUrl).hostname])
  }

  /** Whether a request's host name (Fastify's `request.hostname`) is a domain a page claims. */
  isCustomDomain (hostname: string): boolean {
    const domain = customDomainOf(hostname)
    return this.claimed.has(domain) && !this.serverHosts.has(domain)
  }

  // find-my-way's strategy: Fastify 5 routes by it before any hook runs, and with mustMatchWhenDerived a request it marks
  // matches only the routes constrained to it. Host or X-Forwarded-Host naming a custom domain marks it (request.hostname,
  // which TRUST_PROXY decides, is one of the two), so such a Host never reaches the dashboard or the API.
  readonly strategy = {
    name: 'customDomain',
    mustMatchWhenDerived: true,
    storage: <Handler>() => {
      const handlers = new Map<unknown, Handler>()
      return { get: (value: unknown) => handlers.get(value) ?? null, set: (value: unknown, handler: Handler) => { handlers.set(value, handler) } }
    },
    validate: () => {},
    deriveConstraint: (req: IncomingMessage): string | undefined => {
      if (this.claimed.size === 0) return undefined
      const forwarded = req.headers['x-forwarded-host']
      const named = this.isCustomDomain(hostOf(req.headers.host ?? '')) ||
        (typeof forwarded === 'string' && this.isCustomDomain(hostOf(forwarded.slice(forwarded.lastIndexOf(',') + 1).trim())))
      return named ? ON_CUSTOM_DOMAIN.customDomain : undefined
    },
  }

  /** Loads the claimed domains now and every REFRESH_MS until stop(); a failed load keeps the last ones. */
  async start (db: Database, onError: (error: unknown) => void): Promise<void> {
    this.db = db
    this.timer = setInterval(() => { this.refresh().catch(onError) }, REFRESH_MS).unref()
    await this.refresh()
  }

  /** Reads the claimed domains again; asked during a read, it reads once more after it. */
  refresh (): Promise<void> {
    this.readAgain = this.reading !== undefined
    this.reading ??= (async () => {
      try {
        do {
          this.readAgain = false
          this.claimed = new Set(await claimedDomains(this.db!))
        } while (this.readAgain)
      } finally {
        this.reading = undefined
      }
    })()
    return this.reading
  }

  stop (): void {
    clearInterval(this.timer)
  }
}

/** The host name of a Host header's value, as Fastify's `request.hostname` reads it (custom domains are never IPv6). */
const hostOf = (host: string) => host.split(':', 1)[0]
