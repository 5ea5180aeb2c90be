// Dashboard passwords: scrypt (memory-hard, in Node's crypto), stored as scrypt$N$r$p$salt$hash.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

export const PASSWORD_MIN_LENGTH = 10
// Long enough for any passphrase or manager-made password; bounds the work one request can cause.
export const PASSWORD_MAX_LENGTH = 1024

// 32 MiB per hash (128 * N * r): slow enough per guess and costly to attack in parallel.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 }
const KEY_LENGTH = 64
const SALT_LENGTH = 16

function derive (password: string, salt: Buffer, params: { N: number, r: number, p: number }): Promise<Buffer> {
  // maxmem must exceed 128 * N * r * p, or Node refuses (its default is exactly 32 MiB).
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r * params.p }
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => err ? reject(err) : resolve(key))
  })
}

/** Why the password is not acceptable, or undefined. The one rule for the CLI and the dashboard. */
export function passwordProblem (password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`
  return undefined
}

export async function hashPassword (password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH)
  const hash = await derive(password, salt, PARAMS)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$')
}

/** True when the password matches the stored hash; false for a wrong password or a malformed hash. */
export async function verifyPassword (password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [N, r, p] = parts.slice(1, 4).map(Number)
  // Refuse parameters that would let a tampered row make a sign-in cost seconds or gigabytes.
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 4) {
    return false
  }
  const salt = Buffer.from(parts[4], 'base64')
  const expected = Buffer.from(parts[5], 'base64')
  if (salt.length === 0 || expected.length !== KEY_LENGTH || password.length > PASSWORD_MAX_LENGTH) return false
  const actual = await derive(password, salt, { N, r, p })
  return timingSafeEqual(actual, expected)
}

// A fixed hash to verify against when the email is unknown, so that the answer takes as long either way.
let decoy: Promise<string> | undefined

/** Spends the time of one verification without a real hash (unknown email, no password set). */
export async function verifyDecoy (password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  await verifyPassword(password, await decoy)
  return false
}
