// The migrated database each test's database is copied from, made once for all test files: a PGlite tarball
// (and a data directory for child processes) under .tap/db-templates/, or a PostgreSQL template database.
// Named by a hash of drizzle/ and PGlite's version, so that a template of other migrations is never used.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import postgres from 'postgres'
import { openDatabase } from '../../src/db/client.ts'
import { migrate } from '../../src/db/migrate.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))
const TEMPLATES = join(root, '.tap', 'db-templates')
// Held by the one test process that makes the PostgreSQL template while the others wait for it.
const TEMPLATE_LOCK = 720_011_002

let key: string | undefined
function templateKey (): string {
  if (key) return key
  const hash = createHash('sha256')
  const migrations = join(root, 'drizzle')
  for (const name of readdirSync(migrations, { recursive: true, encoding: 'utf8' }).sort()) {
    if (statSync(join(migrations, name)).isFile()) hash.update(`${name}\0`).update(readFileSync(join(migrations, name)))
  }
  hash.update(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json')))
  return (key = hash.digest('hex').slice(0, 16))
}

/** Moves `made` to `path` unless another process got there first; templates of other migrations go. */
function install (made: string, path: string): void {
  try {
    renameSync(made, path)
  } catch {
    rmSync(made, { recursive: true, force: true }) // a directory made by another process at the same time
  }
  for (const name of readdirSync(TEMPLATES)) {
    if (!name.includes(templateKey())) rmSync(join(TEMPLATES, name), { recursive: true, force: true })
  }
}

const unique = (path: string) => `${path}.${process.pid}-${randomBytes(4).toString('hex')}`

/** PGlite reads the tarball with arrayBuffer(), which a Blob of its own answers slowly, in small steps, each time. */
class TarballBlob extends Blob {
  readonly #bytes: Uint8Array<ArrayBuffer>
  constructor (bytes: Uint8Array<ArrayBuffer>) {
    super([bytes])
    this.#bytes = bytes
  }

  override arrayBuffer (): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes.slice().buffer)
  }
}

let tarball: Promise<Blob> | undefined
/** A migrated PGlite data directory as a tarball, for openDatabase's `pgliteTarball`. */
export function pgliteTarball (): Promise<Blob> {
  tarball ??= (async () => {
    const path = join(TEMPLATES, `pglite-${templateKey()}.tar`)
    if (existsSync(path)) return new TarballBlob(readFileSync(path))
    const handle = await openDatabase({ DATA_DIR: 'memory://' })
    let made: Uint8Array<ArrayBuffer>
    try {
      await migrate(handle)
      made = new Uint8Array(await (await (handle.db as unknown as { $client: PGlite }).$client.dumpDataDir('none')).arrayBuffer())
    } finally {
      await handle.close()
    }
    mkdirSync(TEMPLATES, { recursive: true })
    const partial = unique(path)
    writeFileSync(partial, made)
    install(partial, path)
    return new TarballBlob(made)
  })()
  return tarball
}

let directory: Promise<string> | undefined
/** The same database as a data directory, to copy into a child process's DATA_DIR. */
export function pgliteDataDir (): Promise<string> {
  directory ??= (async () => {
    const path = join(TEMPLATES, `pglite-${templateKey()}`)
    if (existsSync(path)) return path
    const partial = unique(path)
    await (await openDatabase({ DATA_DIR: partial, pgliteTarball: await pgliteTarball() })).close()
    install(partial, path)
    return path
  })()
  return directory
}

/** `url` with another database's name. */
export function databaseUrl (url: string, name: string): string {
  const other = new URL(url)
  other.pathname = `/${name}`
  return other.href
}

let templateName: Promise<string> | undefined
/** The name of a migrated template database in `adminUrl`'s cluster, made by the first test process to ask. */
export function postgresTemplate (adminUrl: string): Promise<string> {
  templateName ??= (async () => {
    const name = `pingward_template_${templateKey()}`
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
    try {
      await admin`select pg_advisory_lock(${TEMPLATE_LOCK})`
      const [found] = await admin`select 1 from pg_database where datname = ${name}`
      if (!found) {
        // Made under another name and renamed when complete: a process stopped halfway leaves no template.
        const partial = `${name}_partial`
        await admin.unsafe(`drop database if exists ${partial} with (force)`)
        await admin.unsafe(`create database ${partial}`)
        const handle = await openDatabase({ DATABASE_URL: databaseUrl(adminUrl, partial), DATA_DIR: 'memory://' })
        try {
          await migrate(handle, databaseUrl(adminUrl, partial))
        } finally {
          await handle.close()
        }
        await admin.unsafe(`alter database ${partial} rename to ${name}`)
      }
    } finally {
      await admin.end() // and with its connection, the lock
    }
    return name
  })()
  return templateName
}
