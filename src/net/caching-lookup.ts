// The checker's name lookups: the hosts file first, as the system's resolver reads it, then DNS answers kept for their TTL, then the system's resolver itself, uncached.
import { Resolver } from 'node:dns/promises'
import { readFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { defaultLookup, type Lookup } from './pinned-lookup.ts'

type Address = { address: string, family: 4 | 6 }

export interface CachingLookupOptions {
  /** The DNS servers asked for a name's A and AAAA records with their TTLs (`host:port`); default: the system's. */
  servers?: string[]
  /** Read before DNS, and again at most every HOSTS_REREAD_MS; default `/etc/hosts`; null: none. */
  hostsFile?: string | null
  /** Asked when DNS has no address for a name (search domains, other name services): its answer has no TTL, so it is not kept. */
  fallback?: Lookup
  now?: () => number
  maxTtlSeconds?: number
  maxNames?: number
}

export const HOSTS_REREAD_MS = 5_000

/** Asks DNS about a name once per TTL, however many monitors check it; each check still applies its policy (pinAddress). */
export function cachingLookup (options: CachingLookupOptions = {}): Lookup {
  const fallback = options.fallback ?? defaultLookup
  const now = options.now ?? Date.now
  const maxTtlMs = (options.maxTtlSeconds ?? 3600) * 1000
  const maxNames = options.maxNames ?? 10_000
  const hosts = hostsReader(options.hostsFile === undefined ? '/etc/hosts' : options.hostsFile, now)
  // Insertion order is the order of expiry for equal TTLs, near enough to drop the oldest first.
  const answers = new Map<string, { addresses: Address[], expiresAt: number }>()
  const asking = new Map<string, Promise<Address[]>>()

  async function ask (name: string): Promise<Address[]> {
    // A resolver per question: c-ares (Node 22 on) keeps answers of its own, which would outlive this cache's TTL.
    const resolver = new Resolver({ tries: 2 })
    if (options.servers) resolver.setServers(options.servers)
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name, { ttl: true }), resolver.resolve6(name, { ttl: true })])
    const records = [
      ...(v4.status === 'fulfilled' ? v4.value.map(({ address, ttl }) => ({ address, family: 4 as const, ttl })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map(({ address, ttl }) => ({ address, family: 6 as const, ttl })) : []),
    ]
    if (records.length === 0) return fallback(name)
    const addresses = records.map(({ address, family }) => ({ address, family }))
    const ttlMs = Math.min(maxTtlMs, ...records.map(({ ttl }) => ttl * 1000))
    if (ttlMs > 0) {
      answers.set(name, { addresses, expiresAt: now() + ttlMs })
      if (answers.size > maxNames) answers.delete(answers.keys().next().value as string)
    }
    return addresses
  }

  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '')
    const listed = await hosts(name)
    if (listed !== undefined) return listed
    const kept = answers.get(name)
    if (kept !== undefined) {
      if (kept.expiresAt > now()) return kept.addresses
      answers.delete(name)
    }
    let pending = asking.get(name)
    if (pending === undefined) {
      pending = ask(name).finally(() => asking.delete(name))
      asking.set(name, pending)
    }
    return pending
  }
}

/** The addresses the hosts file gives a name (lower case), read again when HOSTS_REREAD_MS have passed. */
function hostsReader (file: string | null, now: () => number): (name: string) => Promise<Address[] | undefined> {
  let names = new Map<string, Address[]>()
  let readAt = -Infinity
  let reading: Promise<void> | undefined
  return async (name) => {
    if (file === null) return undefined
    if (now() - readAt >= HOSTS_REREAD_MS) {
      reading ??= readFile(file, 'utf8')
        .then(parseHosts, () => new Map<string, Address[]>())
        .then((read) => { names = read; readAt = now() })
        .finally(() => { reading = undefined })
      await reading
    }
    return names.get(name)
  }
}

/** `address name [alias...]` lines, `#` to the end of a line a comment; every address of a name, in file order. */
export function parseHosts (text: string): Map<string, Address[]> {
  const names = new Map<string, Address[]>()
  for (const line of text.split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/)
    const family = isIP(address)
    if (family === 0) continue
    for (const alias of aliases) {
      const name = alias.toLowerCase()
      const known = names.get(name) ?? []
      if (!known.some((entry) => entry.address === address)) known.push({ address, family: family === 6 ? 6 : 4 })
      names.set(name, known)
    }
  }
  return names
}
