// API key format: `sk_` + 32 random base62 characters (~190 bits) + a 6-character checksum. An agent token (a
// location's, api-contract section 17) is the same after `pwa_`, and is hashed and shown by its prefix as a key is.
import { createHash, randomInt } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_LENGTH = 32
const CHECKSUM_LENGTH = 6
const BODY = `[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}`
const KEY_PATTERN = new RegExp(`^sk_${BODY}$`)
const AGENT_TOKEN_PATTERN = new RegExp(`^pwa_${BODY}$`)

// The checksum lets the server refuse a mistyped or made-up key without a database round trip.
function checksum (body: string): string {
  let n = createHash('sha256').update(body).digest().readUIntBE(0, 6)
  let out = ''
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out += ALPHABET[n % 62]
    n = Math.floor(n / 62)
  }
  return out
}

/** The random characters and their checksum. */
function randomBody (): string {
  let body = ''
  for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[randomInt(62)]
  return `${body}${checksum(body)}`
}

/** Whether the part after a prefix checks out. */
const checksumMatches = (rest: string) => rest.slice(RANDOM_LENGTH) === checksum(rest.slice(0, RANDOM_LENGTH))

export function generateApiKey (): string {
  return `sk_${randomBody()}`
}

/** True when the text has the form of a key and its checksum matches. */
export function isWellFormedKey (key: string): boolean {
  return KEY_PATTERN.test(key) && checksumMatches(key.slice(3))
}

export function generateAgentToken (): string {
  return `pwa_${randomBody()}`
}

/** True when the text has the form of an agent token and its checksum matches: never an API key, and the other way round. */
export function isWellFormedAgentToken (token: string): boolean {
  return AGENT_TOKEN_PATTERN.test(token) && checksumMatches(token.slice(4))
}

export function hashApiKey (key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** What is shown in listings to tell keys apart: never enough to use one. */
export function keyPrefix (key: string): string {
  return key.slice(0, 11)
}
