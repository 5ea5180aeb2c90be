// First start on an empty database: create the first user and print one write key, once; and while that
// user has no dashboard password, a one-time link to set it.
import type { Database } from '../db/client.ts'
import { systemAudit } from '../domain/audit.ts'
import { personalOrgId } from '../organizations/repository.ts'
import { createFirstUser, findUserByEmail } from '../repositories/users.ts'
import { makeApiKey } from './api-keys.ts'
import { issueSetupToken } from './setup-links.ts'

/** Returns the new key, or undefined when the database already had a user. */
export async function bootstrapFirstUser (db: Database, email: string): Promise<string | undefined> {
  const user = await createFirstUser(db, email)
  if (!user) return undefined
  const input = { userId: user.id, orgId: personalOrgId(user.id), name: 'first key', scope: 'write' } as const
  const { key } = await makeApiKey(db, input, new Date(), systemAudit('first start'))
  return key
}

/** A one-time link to set the user's dashboard password, while the user exists and has none. */
export async function passwordSetupUrl (db: Database, email: string, baseUrl: string, now = new Date()): Promise<string | undefined> {
  const user = await findUserByEmail(db, email)
  if (!user || user.passwordHash) return undefined
  return `${baseUrl}/setup?token=${await issueSetupToken(db, user.id, now)}`
}

function setupLines (email: string, setupUrl: string | undefined): string[] {
  if (!setupUrl) return []
  return [
    `Dashboard: set the password of ${email} with this link (it works once, within 24 hours):`,
    `  ${setupUrl}`,
    '',
  ]
}

/** Printed at a later start while the first user still has no dashboard password. */
export function setupBanner (email: string, setupUrl: string): string {
  return ['', ...setupLines(email, setupUrl)].join('\n')
}

export function firstKeyBanner (email: string, key: string, baseUrl: string, setupUrl?: string): string {
  return [
    '',
    `Pingward created the first user (${email}) and this API key with write scope.`,
    'It is shown only this once: keep it somewhere safe.',
    '',
    `  ${key}`,
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${key}" ${baseUrl}/api/v1/monitors`,
    '',
    ...setupLines(email, setupUrl),
    `API documentation: ${baseUrl}/docs`,
    '',
  ].join('\n')
}
