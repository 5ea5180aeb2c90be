// `keys create`'s options checked by the API's own rules for a new key (CreateApiKeySchema, which the
// dashboard's form uses too), worded for the command line. Loaded only by that command: Ajv takes a while.
import { bodyValidator } from '../http/validation.ts'
import { API_KEY_SCOPES } from '../domain/vocabulary.ts'
import { CreateApiKeySchema, KEY_EXPIRY_MAX_DAYS, type CreateApiKey } from '../schemas/api-key.ts'
import type { CliCommand } from './commands.ts'
import { UsageError } from './args.ts'

// The command line's words for the rules of CreateApiKeySchema, by field.
const KEY_FLAG_RULES: Record<string, string> = {
  name: '--name must be 1-100 characters and not blank',
  scope: `--scope must be ${API_KEY_SCOPES.join(' or ')}`,
  expires_in_days: `--expires-in must be a whole number of days from 1 to ${KEY_EXPIRY_MAX_DAYS}`,
}

export function keyCommand (email: string, input: Record<string, unknown>): CliCommand {
  const result = bodyValidator<CreateApiKey>(CreateApiKeySchema)(input)
  if (!result.ok) throw new UsageError(KEY_FLAG_RULES[result.error.field] ?? result.error.message)
  const { scope, name, expires_in_days: days } = result.value
  return { name: 'keys create', email, scope, keyName: name, expiresInDays: days }
}
