// Which addresses a monitor may target: only public unicast, unless the operator allows private targets.
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

// The ipaddr.js IPv4 range names that are globally reachable unicast; an IPv6 address must be plain 'unicast'.
// Every other name is refused, among them linkLocal (169.254.169.254, the cloud metadata address).
const PUBLIC_IPV4 = new Set(['unicast', 'as112', 'amt'])

const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96')

/** The IPv4 address an IPv6 address leads to; null when it cannot be read safely (refused); undefined when none. */
function embeddedIpv4 (address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null | undefined {
  const bytes = address.toByteArray()
  const at = (offset: number) => new ipaddr.IPv4(bytes.slice(offset, offset + 4))
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d, where the socket layer connects over IPv4
    case 'rfc6145': // ::ffff:0:a.b.c.d, IPv4-translated (SIIT)
      return at(12)
    // Only the well-known NAT64 prefix is read: in local-use ones (RFC 8215) the operator picks where the IPv4 sits.
    case 'rfc6052':
      return address.match(NAT64_WELL_KNOWN) ? at(12) : null
    case '6to4': // 2002:AABB:CCDD::/48 carries its relay's IPv4 in bits 16-48
      return at(2)
    // Teredo goes through a relay chosen by whoever routes it: no embedded address is the one we connect to.
    case 'teredo':
      return null
    // ::a.b.c.d, the deprecated IPv4-compatible form, which ipaddr.js counts as plain unicast.
    case 'unicast':
      return bytes.slice(0, 12).every((byte) => byte === 0) ? at(12) : undefined
    default:
      return undefined
  }
}

/** True when the IP address (v4 or v6, without brackets) is not public unicast. */
export function isPrivateAddress (ip: string): boolean {
  // node's parser is the strict one: ipaddr.js would also read '127.1' or '0x7f.1' as addresses.
  if (isIP(ip) === 0) return true
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try {
    address = ipaddr.parse(ip)
  } catch {
    return true // e.g. a zone id that ipaddr.js does not take: not an address we can vouch for
  }
  if (address instanceof ipaddr.IPv4) return !PUBLIC_IPV4.has(address.range())
  const range = address.range()
  const embedded = embeddedIpv4(address, range)
  if (embedded === null) return true
  if (embedded !== undefined) return !PUBLIC_IPV4.has(embedded.range())
  return range !== 'unicast'
}

// Special-use names and the top-level names RFC 6762 (appendix G) lists as used privately: only a private resolver answers them.
const PRIVATE_NAMES = /(^|\.)(localhost|localdomain|internal|local|home\.arpa|intranet|private|corp|home|lan)$|^metadata$/i

export const PRIVATE_TARGET_HINT = 'private, loopback, link-local and metadata addresses are refused; the operator can allow them with ALLOW_PRIVATE_TARGETS=true'

/** What can be known without a DNS lookup; names that resolve to private addresses are refused at connect time. */
export function privateTargetReason (url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '')
  if (isIP(host) ? isPrivateAddress(host) : PRIVATE_NAMES.test(host)) return `${host} is not a public address`
  return undefined
}

/** True when the host is `localhost` or a loopback address: any other name may lead off the machine later. */
export function isLoopbackHost (hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (isIP(host) === 0) return host === 'localhost' || host.endsWith('.localhost')
  return ipaddr.process(host).range() === 'loopback'
}

/** True when a name from a DNS answer (CNAME, MX, NS) looks private; its addresses are not looked up here. */
export function isPrivateName (name: string): boolean {
  const host = name.trim().replace(/\.$/, '')
  if (isIP(host) !== 0) return isPrivateAddress(host)
  return !host.includes('.') || PRIVATE_NAMES.test(host)
}
