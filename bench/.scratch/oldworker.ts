// The worker as it was before this work: drizzle's unprepared queries, PGlite loaded eagerly.
import '@electric-sql/pglite'
import 'drizzle-orm/pglite'
import pino from 'pino'
import postgres from 'postgres'
import { drizzle } from 'drizzle-orm/postgres-js'
import * as schema from '../../src/db/schema.ts'
import { loadConfig } from '../../src/config.ts'
import { startChecker } from '../../src/checker/index.ts'
const config = loadConfig()
const log = pino({ level: config.LOG_LEVEL, base: { role: 'worker', pid: process.pid } })
const client = postgres(config.DATABASE_URL!, { max: Math.min(20, Math.max(4, Math.ceil(config.CHECK_CONCURRENCY / 10))), onnotice: () => {}, connect_timeout: 5, idle_timeout: 60 })
const db = drizzle({ client, schema }) as any
const checker = startChecker({ config, db, log })
process.on('SIGTERM', async () => { await checker.stop(); await client.end({ timeout: 5 }); process.exit(0) })
