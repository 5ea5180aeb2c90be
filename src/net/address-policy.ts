// Which addresses a monitor may target: only public unicast, unless the operator allows private targets.
import { isIP } from 'node:net'

type Range = [bigint, number] // network as a 128-bit number, prefix length in the IPv6 space

function ipv4ToBigInt (ip: string): bigint {
  return ip.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n)
}

function ipv6ToBigInt (ip: string): bigint {
  let text = ip.toLowerCase()
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  // A trailing dotted IPv4 part (::ffff:1.2.3.4) becomes two hextets.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const v4 = ipv4ToBigInt(dotted[1])
    text = text.slice(0, dotted.index) + `${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`
  }
  const [head, tail] = text.split('::')
  const headParts = head ? head.split(':') : []
  const tailParts = tail !== undefined && tail !== '' ? tail.split(':') : []
  const missing = 8 - headParts.length - tailParts.length
  const parts = tail === undefined ? headParts : [...headParts, ...Array(missing).fill('0'), ...tailParts]
  return parts.reduce((n, part) => (n << 16n) | BigInt(parseInt(part, 16)), 0n)
}

const v4Range = (cidr: string): Range => {
  const [ip, bits] = cidr.split('/')
  return [(0xffffn << 32n) | ipv4ToBigInt(ip), 96 + Number(bits)]
}
const v6Range = (cidr: string): Range => {
  const [ip, bits] = cidr.split('/')
  return [ipv6ToBigInt(ip), Number(bits)]
}

// IPv4 ranges are kept as IPv4-mapped IPv6 (::ffff:a.b.c.d), so one table serves both families.
const BLOCKED: Range[] = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
].map(v4Range).concat([
  '::/128', '::1/128', '100::/64', '2001::/23', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'fec0::/10', 'ff00::/8',
].map(v6Range))

const inRange = (n: bigint, [network, bits]: Range) => (n >> BigInt(128 - bits)) === (network >> BigInt(128 - bits))

/** Maps addresses that embed an IPv4 address (mapped, compatible, NAT64, 6to4) to that IPv4 address. */
function embeddedIpv4 (n: bigint): bigint | undefined {
  if (n >> 32n === 0xffffn || (n >> 32n === 0n && n > 1n)) return (0xffffn << 32n) | (n & 0xffffffffn)
  if (inRange(n, v6Range('64:ff9b::/96'))) return (0xffffn << 32n) | (n & 0xffffffffn)
  if (inRange(n, v6Range('2002::/16'))) return (0xffffn << 32n) | ((n >> 80n) & 0xffffffffn)
  return undefined
}

/** True when the IP address (v4 or v6, without brackets) is not public unicast. */
export function isPrivateAddress (ip: string): boolean {
  const family = isIP(ip)
  if (family === 0) return true
  const n = family === 4 ? (0xffffn << 32n) | ipv4ToBigInt(ip) : ipv6ToBigInt(ip)
  const v4 = family === 6 ? embeddedIpv4(n) : undefined
  return BLOCKED.some((range) => inRange(n, range) || (v4 !== undefined && inRange(v4, range)))
}

const PRIVATE_NAMES = /(^|\.)(localhost|localdomain|internal|local|home\.arpa)$|^metadata$/i

export const PRIVATE_TARGET_HINT = 'private, loopback, link-local and metadata addresses are refused; the operator can allow them with ALLOW_PRIVATE_TARGETS=true'

/**
 * Checks what can be known of a URL without a DNS lookup: an IP literal or a name that is private by
 * definition. Names that resolve to private addresses are refused by the checker at connect time.
 */
export function privateTargetReason (url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '')
  if (isIP(host) ? isPrivateAddress(host) : PRIVATE_NAMES.test(host)) return `${host} is not a public address`
  return undefined
}
