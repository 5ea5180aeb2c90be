import { PgDialect } from 'drizzle-orm/pg-core'
import { listMonitorsQuery } from '../../src/repositories/monitors.ts'
console.log(JSON.stringify(new PgDialect().sqlToQuery(listMonitorsQuery('u')).sql))
