// The server's own keys: made by the first instance that needs one, then read by all (and remembered per process).
import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { serverSecrets } from '../db/schema.ts'

type SecretName = 'acknowledge_links'

const remembered = new WeakMap<Database, Map<SecretName, Promise<Buffer>>>()

async function readOrMake (db: Database, name: SecretName): Promise<Buffer> {
  await db.insert(serverSecrets).values({ name, value: randomBytes(32).toString('base64') }).onConflictDoNothing()
  const [row] = await db.select().from(serverSecrets).where(eq(serverSecrets.name, name))
  return Buffer.from(row.value, 'base64')
}

/** The named 32-byte key, the same on every instance of this database. */
export function serverSecret (db: Database, name: SecretName): Promise<Buffer> {
  const secrets = remembered.get(db) ?? new Map<SecretName, Promise<Buffer>>()
  remembered.set(db, secrets)
  let secret = secrets.get(name)
  if (!secret) {
    secret = readOrMake(db, name)
    // A failed read (the database away) is tried again next time.
    secret.catch(() => secrets.delete(name))
    secrets.set(name, secret)
  }
  return secret
}
