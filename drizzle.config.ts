// drizzle-kit configuration: one pg-core schema, one migrations folder for PGlite and PostgreSQL.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
})
