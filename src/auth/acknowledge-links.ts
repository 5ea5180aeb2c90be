// One-click acknowledge links (api-contract section 13): an incident, the channel the link went to and an expiry,
// signed with the server's key (HMAC-SHA256), so that any instance checks one without having stored it.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** How long a link works after the message that carried it was sent. */
export const ACKNOWLEDGE_LINK_TTL_MS = 24 * 3_600_000

export interface AcknowledgeLink { incidentId: string, channelId: string, expiresAt: Date }

const VERSION = 1
// version, incident id, channel id, expiry in seconds; then the 32-byte MAC of them.
const BODY_LENGTH = 1 + 16 + 16 + 4
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{92}$/

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex')
const uuidOf = (bytes: Buffer) => bytes.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')
const macOf = (key: Buffer, body: Buffer) => createHmac('sha256', key).update(body).digest()

export function signAcknowledgeLink (key: Buffer, link: AcknowledgeLink): string {
  const body = Buffer.alloc(BODY_LENGTH)
  body[0] = VERSION
  uuidBytes(link.incidentId).copy(body, 1)
  uuidBytes(link.channelId).copy(body, 17)
  body.writeUInt32BE(Math.ceil(link.expiresAt.getTime() / 1000), 33)
  return Buffer.concat([body, macOf(key, body)]).toString('base64url')
}

/** The link a token names if `key` signed it; `expired` past its expiry; null for anything else. */
export function readAcknowledgeLink (key: Buffer, token: string, now: Date): AcknowledgeLink | 'expired' | null {
  if (!TOKEN_PATTERN.test(token)) return null
  const bytes = Buffer.from(token, 'base64url')
  const body = bytes.subarray(0, BODY_LENGTH)
  if (body[0] !== VERSION || !timingSafeEqual(bytes.subarray(BODY_LENGTH), macOf(key, body))) return null
  const expiresAt = new Date(body.readUInt32BE(33) * 1000)
  if (expiresAt <= now) return 'expired'
  return { incidentId: uuidOf(body.subarray(1, 17)), channelId: uuidOf(body.subarray(17, 33)), expiresAt }
}
