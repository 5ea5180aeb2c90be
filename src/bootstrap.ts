// First start on an empty database: create the first user and print one write key, once.
import type { Database } from './db/client.ts'
import { createApiKey } from './repositories/api-keys.ts'
import { createFirstUser } from './repositories/users.ts'

/** Returns the new key, or undefined when the database already had a user. */
export async function bootstrapFirstUser (db: Database, email: string): Promise<string | undefined> {
  const user = await createFirstUser(db, email)
  if (!user) return undefined
  const { key } = await createApiKey(db, { userId: user.id, name: 'first key', scope: 'write' })
  return key
}

export function firstKeyBanner (email: string, key: string, baseUrl: string): string {
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
    `API documentation: ${baseUrl}/docs`,
    '',
  ].join('\n')
}
