// The benchmark's databases: a fresh PostgreSQL database next to DATABASE_URL, or a PGlite directory.
import { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { openDatabase } from '../src/db/client.ts'
import { migrate } from '../src/db/migrate.ts'
import type { SqlRunner } from './seed.ts'

export function databaseUrl (adminUrl: string, name: string): string {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.href
}

/** Drops and creates an empty database `name` next to adminUrl's; returns its URL. */
export async function emptyPostgresDatabase (adminUrl: string, name: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`)
    await admin.unsafe(`create database ${name}`)
  } finally {
    await admin.end()
  }
  return databaseUrl(adminUrl, name)
}

/** Drops and creates `name` next to adminUrl's database, and migrates it with Pingward's own migrator. */
export async function createPostgresDatabase (adminUrl: string, name: string): Promise<string> {
  const url = await emptyPostgresDatabase(adminUrl, name)
  const handle = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'unused' })
  try {
    await migrate(handle, url)
  } finally {
    await handle.close()
  }
  return url
}

export interface Runner extends SqlRunner {
  close: () => Promise<void>
}

/** A SqlRunner on one postgres.js connection. */
export function postgresRunner (url: string): Runner {
  const sql = postgres(url, { max: 1, onnotice: () => {}, idle_timeout: 0 })
  return {
    exec: async (text) => { await sql.unsafe(text) },
    query: async (text, params = []) => [...await sql.unsafe(text, params as never[])],
    close: () => sql.end({ timeout: 5 }),
  }
}

/** Creates and migrates a PGlite database in `dir` (which must not exist yet), open for seeding. */
export async function createPgliteDatabase (dir: string): Promise<Runner> {
  const handle = await openDatabase({ DATA_DIR: dir })
  await migrate(handle)
  await handle.close()
  const client = await PGlite.create(dir)
  return {
    exec: async (text) => { await client.exec(text) },
    query: async (text, params = []) => (await client.query<Record<string, any>>(text, params)).rows,
    close: () => client.close(),
  }
}

/** The server version, for the report. */
export async function postgresVersion (url: string): Promise<string> {
  const runner = postgresRunner(url)
  try {
    const [row] = await runner.query('show server_version')
    return `PostgreSQL ${String(row.server_version).split(' ')[0]}`
  } finally {
    await runner.close()
  }
}
