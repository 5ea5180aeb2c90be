import { PgDialect } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { ownedChecksQuery } from '../../src/repositories/checks.ts'
const d = new PgDialect()
let n = 0
let t = performance.now()
for (let i = 0; i < 100000; i++) n += d.sqlToQuery(ownedChecksQuery('u', 'm', { limit: 100 })).sql.length
console.log('build+toQuery us', (performance.now() - t) / 100)
const q = ownedChecksQuery('u', 'm', { limit: 100 })
t = performance.now()
for (let i = 0; i < 100000; i++) n += d.sqlToQuery(q).sql.length
console.log('toQuery us', (performance.now() - t) / 100)
t = performance.now()
for (let i = 0; i < 100000; i++) n += ownedChecksQuery('u', 'm', { limit: 100 }).queryChunks.length
console.log('build us', (performance.now() - t) / 100)
