// API key format: `sk_` + 32 random base62 characters (~190 bits) + a 6-character checksum.
import { createHash, randomInt } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const RANDOM_LENGTH = 32
const CHECKSUM_LENGTH = 6
const KEY_PATTERN = new RegExp(`^sk_[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`)

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

export function generateApiKey (): string {
  let body = ''
  for (let i = 0; i < RANDOM_LENGTH; i++) body += ALPHABET[randomInt(62)]
  return `sk_${body}${checksum(body)}`
}

/** True when the text has the form of a key and its checksum matches. */
export function isWellFormedKey (key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false
  const body = key.slice(3, 3 + RANDOM_LENGTH)
  return key.slice(3 + RANDOM_LENGTH) === checksum(body)
}

export function hashApiKey (key: string): string {
  return createHash('sha256').update(key).digest('hex')
}

/** What is shown in listings to tell keys apart: never enough to use one. */
export function keyPrefix (key: string): string {
  return key.slice(0, 11)
}
