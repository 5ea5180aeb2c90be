// Test helpers: an app on a fresh database per test file (PGlite, or PostgreSQL when DATABASE_URL is set),
// small factories for users, keys and monitors, Pingward child processes, temp dirs and waiting for a state.
// (Local target servers and free ports: test/support/target-server.ts.)
import { connect } from 'node:net'
import { systemAudit } from '../src/domain/audit.ts'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as pause } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, InjectOptions } from 'fastify'
import postgres from 'postgres'
import { buildApp } from '../src/app.ts'
import { ConfigSchema, loadConfig, type Config } from '../src/runtime/config.ts'
import { STRIP_TYPES_ARGV } from '../src/runtime/jobs-thread.ts'
import type { Clock } from '../src/runtime/clock.ts'
import { openDatabase, type DatabaseHandle } from '../src/db/client.ts'
import { createApiKey } from '../src/repositories/api-keys.ts'
import type { ApiKeyScope, Role } from '../src/domain/vocabulary.ts'
import { insertOrganization, personalOrgId, upsertMember } from '../src/organizations/repository.ts'
import { createUser } from '../src/repositories/users.ts'
import { databaseUrl, pgliteDataDir, pgliteTarball, postgresTemplate } from './support/database-template.ts'

/** All a helper needs of a tap test: somewhere to register cleanup. */
export interface Teardown { teardown: (fn: () => unknown) => void }

export const usingPostgres = Boolean(process.env.DATABASE_URL)

/** The audit log's actor of a change a test makes through a service, as a fixture. */
export const testAudit = systemAudit('test')

/**
 * A fresh, migrated database for this test, copied from the template (support/database-template.ts): an in-memory
 * PGlite, or a new PostgreSQL database next to DATABASE_URL's that is dropped at teardown. `unmigrated`: empty.
 */
export async function createTestDatabase (t: Teardown, options: { unmigrated?: boolean } = {}): Promise<{ handle: DatabaseHandle, DATABASE_URL?: string }> {
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) {
    const handle = await openDatabase({ DATA_DIR: 'memory://', pgliteTarball: options.unmigrated ? undefined : await pgliteTarball() })
    t.teardown(() => handle.close())
    return { handle }
  }
  const template = options.unmigrated ? 'template0' : await postgresTemplate(adminUrl)
  const name = `pingward_test_${randomBytes(6).toString('hex')}`
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} })
  await admin.unsafe(`create database ${name} template ${template}`)
  const url = databaseUrl(adminUrl, name)
  const handle = await openDatabase({ DATABASE_URL: url, DATA_DIR: 'memory://' })
  t.teardown(async () => {
    await handle.close()
    await admin.unsafe(`drop database if exists ${name} with (force)`)
    await admin.end()
  })
  return { handle, DATABASE_URL: url }
}

/**
 * The database of a Pingward child process (server, worker, CLI) in this test, as the variables to give it:
 * a fresh PostgreSQL database (DATABASE_URL) when DATABASE_URL is set, else a fresh PGlite data directory
 * (DATA_DIR, named `<prefix>XXXXXX`, migrated), which one process at a time may hold.
 */
export async function childDatabase (t: Teardown, prefix: string): Promise<Record<string, string>> {
  if (usingPostgres) return { DATABASE_URL: (await createTestDatabase(t)).DATABASE_URL! }
  const dir = tempDir(t, prefix)
  cpSync(await pgliteDataDir(), dir, { recursive: true })
  return { DATA_DIR: dir }
}

export function testConfig (overrides: Record<string, string> = {}): Config {
  return loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: 'silent', CHECKER: 'off', RATE_LIMIT_MAX: '100000', ...overrides })
}

/** The rate limiter's store for a test's app: Redis when REDIS_URL is set (under a prefix of its own), else memory. */
export function limiterStore (): Record<string, string> {
  return process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: `pingward-test-${randomBytes(4).toString('hex')}:` } : {}
}

export interface TestApp {
  app: FastifyInstance
  database: DatabaseHandle
  DATABASE_URL?: string
}

/** An app (not listening) on a fresh database; closed at teardown. */
export async function buildTestApp (
  t: Teardown, options: { env?: Record<string, string>, clock?: Clock, database?: DatabaseHandle } = {}
): Promise<TestApp> {
  const created = options.database ? { handle: options.database } : await createTestDatabase(t)
  const app = await buildApp({ config: testConfig(options.env), clock: options.clock, database: created.handle, logger: false })
  t.teardown(() => app.close())
  await app.ready()
  return { app, database: created.handle, DATABASE_URL: 'DATABASE_URL' in created ? created.DATABASE_URL : undefined }
}

let userCounter = 0

/** A user with a key of the given scope; `auth` is the header to send. */
export async function makeUser (app: FastifyInstance, scope: ApiKeyScope = 'write') {
  const user = await createUser(app.db, `user${++userCounter}-${randomBytes(3).toString('hex')}@example.com`)
  const orgId = personalOrgId(user.id)
  const { key, record } = await createApiKey(app.db, { userId: user.id, orgId, name: 'test', scope })
  return { user, orgId, key, keyId: record.id, auth: { authorization: `Bearer ${key}` } }
}

/** A new user who owns a new organization besides their personal one, and a key of theirs there. */
export async function makeTeam (app: FastifyInstance) {
  const founder = await makeUser(app)
  const org = await insertOrganization(app.db, { name: 'Team', slug: `team-${randomBytes(4).toString('hex')}`, ownerId: founder.user.id, now: new Date() })
  const { key, record } = await createApiKey(app.db, { userId: founder.user.id, orgId: org.id, name: 'team', scope: 'write' })
  return { user: founder.user, orgId: org.id, key, keyId: record.id, auth: { authorization: `Bearer ${key}` } }
}

/** A new user who is a member of the organization with `role`, and a key of theirs there. */
export async function makeMember (app: FastifyInstance, orgId: string, role: Role, scope: ApiKeyScope = 'write') {
  const user = await createUser(app.db, `member${++userCounter}-${randomBytes(3).toString('hex')}@example.com`)
  await upsertMember(app.db, orgId, user.id, role, new Date())
  const { key, record } = await createApiKey(app.db, { userId: user.id, orgId, name: 'member', scope })
  return { user, orgId, key, keyId: record.id, auth: { authorization: `Bearer ${key}` } }
}

export async function makeKey (app: FastifyInstance, userId: string, scope: ApiKeyScope = 'write', expiresAt?: Date, orgId = personalOrgId(userId)) {
  const { key, record } = await createApiKey(app.db, { userId, orgId, name: 'extra', scope, expiresAt })
  return { key, keyId: record.id, auth: { authorization: `Bearer ${key}` } }
}

export const validMonitor = (overrides: Record<string, unknown> = {}) => ({
  name: 'Example',
  url: 'https://example.com/health',
  ...overrides,
})

/** Creates a monitor through the API and returns its body. */
export async function makeMonitor (app: FastifyInstance, auth: Record<string, string>, overrides: Record<string, unknown> = {}) {
  const res = await app.inject({ method: 'POST', url: '/api/v1/monitors', headers: auth, payload: validMonitor(overrides) })
  if (res.statusCode !== 201) throw new Error(`makeMonitor: ${res.statusCode} ${res.body}`)
  return res.json().data as Record<string, any>
}

export function request (app: FastifyInstance, auth: Record<string, string>, options: InjectOptions) {
  return app.inject({ ...options, headers: { ...auth, ...options.headers } })
}

/**
 * The environment for a Pingward child process (server, worker, CLI): none of the parent's Pingward
 * settings, and none of tap's process tracking: a child's coverage would be merged with the test
 * processes' own.
 */
export function childEnv (vars: Record<string, string | undefined>): NodeJS.ProcessEnv {
  // (spawnPingward also strips NODE_OPTIONS at exec time: tap's process tracking re-adds it to spawns.)
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.keys(env)) {
    if (name in ConfigSchema.properties || /^(_TAPJS_|TAP_?|NODE_OPTIONS$|NODE_V8_COVERAGE$)/.test(name)) delete env[name]
  }
  return { ...env, ...vars }
}

/** Spawns `node <STRIP_TYPES_ARGV> <script> ...args` (a Pingward entry point) with childEnv(vars), as tap runs the tests. */
export function spawnPingward (script: string, args: string[], vars: Record<string, string | undefined>): ChildProcessWithoutNullStreams {
  return spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, ...STRIP_TYPES_ARGV, script, ...args], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: childEnv(vars),
  })
}

/**
 * Waiting for a child's output: `waitFor` resolves with the first match of a pattern in `text()` from
 * `from` on, and rejects when the child exits first (saying `describe()`), or after `timeoutMs` when one
 * is given: by default the test's own timeout is the only bound, so a slow machine cannot fail the wait.
 * The caller calls `wake` whenever output arrives and when the child closes.
 */
export function outputWaiter (child: ChildProcessWithoutNullStreams, text: () => string, describe: () => string) {
  const waiters = new Set<() => void>()
  const wake = () => { for (const check of waiters) check() }
  const waitFor = (pattern: RegExp, timeoutMs?: number, from = 0) => new Promise<RegExpExecArray>((resolve, reject) => {
    // Without the g flag: exec would otherwise start where the previous call stopped.
    const once = new RegExp(pattern.source, pattern.flags.replace('g', ''))
    const timer = timeoutMs === undefined
      ? undefined
      : setTimeout(() => finish(new Error(`timed out waiting for ${pattern}\n${describe()}`)), timeoutMs)
    const check = () => {
      const match = once.exec(text().slice(from))
      if (match) finish(undefined, match)
      else if (child.exitCode !== null || child.signalCode !== null) {
        finish(new Error(`exited (${child.exitCode ?? child.signalCode}) before ${pattern}\n${describe()}`))
      }
    }
    const finish = (err?: Error, match?: RegExpExecArray) => {
      clearTimeout(timer)
      waiters.delete(check)
      if (err) reject(err)
      else resolve(match!)
    }
    waiters.add(check)
    check()
  })
  return { wake, waitFor }
}

/** A new empty directory under the system's temp dir, named `<prefix>XXXXXX`; removed with its contents at teardown. */
export function tempDir (t: Teardown, prefix = 'pingward-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Waits for a state the test can only observe by asking (a row in the database, an answer of the API):
 * resolves with the first truthy value of `read()`, asked every `everyMs` (a pause between questions,
 * not a guess at how long anything takes). No deadline of its own: the test's timeout is the only bound,
 * so a slow machine makes the test slower, never wrong. A read that throws fails the wait.
 */
export async function until<T> (read: () => T | Promise<T>, everyMs = 50): Promise<NonNullable<T>> {
  for (;;) {
    const value = await read()
    if (value) return value as NonNullable<T>
    await pause(everyMs)
  }
}

export interface CliRun { code: number | null, stdout: string, stderr: string }

/**
 * Runs the operator CLI (`src/cli.ts`) as a real process to its end; `input` is written to its stdin, then
 * closed, so the CLI never waits for more. No time limit of its own: the test's timeout is the bound.
 */
export function runCli (args: string[], vars: Record<string, string>, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnPingward('src/cli.ts', args, vars)
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(input ?? '')
  })
}

/** Whether a Redis server answers at `url` (a TCP connect within a second): tests that need one skip, naming it, when not. */
export function redisReachable (url: string): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname)
    socket.setTimeout(1000, () => { socket.destroy(); resolve(false) })
    socket.on('connect', () => { socket.destroy(); resolve(true) }).on('error', () => resolve(false))
  })
}
