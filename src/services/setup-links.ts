// One-time links to set a user's first dashboard password. Only the token's SHA-256 is stored, so any
// instance accepts a link another printed; a link works once (taken in the transaction that sets the password).
import { createHash, randomBytes } from 'node:crypto'
import type { Database } from '../db/client.ts'
import {
  createSetupToken, deleteExpiredSetupTokens, deleteSetupTokensOfUser, findSetupTokenUser, takeSetupToken,
} from '../repositories/setup-tokens.ts'
import { findUserById, setFirstPasswordHash, type User } from '../repositories/users.ts'

/** Long enough to open a link printed at a start the evening before. */
export const SETUP_LINK_TTL_MS = 24 * 3_600_000

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
// Tokens are 43 base64url characters; anything else is not one of ours and is not looked up.
const plausible = (token: string | undefined): token is string => typeof token === 'string' && /^[\w-]{43}$/.test(token)

/** A new link's token for the user; links issued before stay valid. */
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

/** Sets the first password through the link, taking it so that of two tabs only one succeeds; ends the user's other links. */
export async function useSetupToken (db: Database, token: string | undefined, passwordHash: string, now: Date): Promise<User | undefined> {
  if (!plausible(token)) return undefined
  return db.transaction(async (tx) => {
    const userId = await takeSetupToken(tx, sha256(token), now)
    // A link for a user who has a password by now (set from the CLI) is spent all the same.
    if (!userId || !await setFirstPasswordHash(tx, userId, passwordHash)) return undefined
    await deleteSetupTokensOfUser(tx, userId)
    return findUserById(tx, userId)
  })
}
