// One-time links to set a user's first dashboard password (/setup?token=...). The token is random, only its
// SHA-256 is stored (setup_tokens), with an expiry: any instance on the database accepts a link another one
// printed, a restart does not void it, and it works once (taken in the transaction that sets the password).
import { createHash, randomBytes } from 'node:crypto'
import type { Database } from '../db/client.ts'
import {
  createSetupToken, deleteExpiredSetupTokens, deleteSetupTokensOfUser, findSetupTokenUser, takeSetupToken,
} from '../repositories/setup-tokens.ts'
import { findUserById, setFirstPasswordHash, type User } from '../repositories/users.ts'

/** How long a setup link works: a day, enough to open a link printed at a start the evening before. */
export const SETUP_LINK_TTL_MS = 24 * 3_600_000

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
// Tokens are 43 base64url characters; anything else is not one of ours and is not looked up.
const plausible = (token: string | undefined): token is string => typeof token === 'string' && /^[\w-]{43}$/.test(token)

/** A new link's token for the user, valid SETUP_LINK_TTL_MS from `now` (links issued before stay valid too). */
export async function issueSetupToken (db: Database, userId: string, now: Date): Promise<string> {
  await deleteExpiredSetupTokens(db, now)
  const token = randomBytes(32).toString('base64url')
  await createSetupToken(db, { id: sha256(token), userId, now, expiresAt: new Date(now.getTime() + SETUP_LINK_TTL_MS) })
  return token
}

/** The user a link is for, while the link is live and the user still has no password; else undefined. */
export async function setupTokenUser (db: Database, token: string | undefined, now: Date): Promise<User | undefined> {
  if (!plausible(token)) return undefined
  const userId = await findSetupTokenUser(db, sha256(token), now)
  const user = userId ? await findUserById(db, userId) : undefined
  return user && !user.passwordHash ? user : undefined
}

/**
 * Sets the first password through the link, in one transaction: the link is taken (so of two tabs only one
 * gets it) and the user's other links end with it. The user, or undefined when the link was no longer
 * valid or the user had a password meanwhile (no password is set then).
 */
export async function useSetupToken (db: Database, token: string | undefined, passwordHash: string, now: Date): Promise<User | undefined> {
  if (!plausible(token)) return undefined
  return db.transaction(async (tx) => {
    const userId = await takeSetupToken(tx, sha256(token), now)
    // A link taken for a user who has a password by now (set from the CLI) is spent all the same.
    if (!userId || !await setFirstPasswordHash(tx, userId, passwordHash)) return undefined
    await deleteSetupTokensOfUser(tx, userId)
    return findUserById(tx, userId)
  })
}
