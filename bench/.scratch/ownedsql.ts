import { PgDialect } from 'drizzle-orm/pg-core'
import { ownedChecksQuery } from '../../src/repositories/checks.ts'
console.log(JSON.stringify(new PgDialect().sqlToQuery(ownedChecksQuery('u', 'm', { limit: 100 }))))
