// `keys create`'s options checked by the API's rules for a new key where the command runs, so that the CLI loads no Ajv.
import { bodyValidator } from '../http/validation.ts'
import { API_KEY_SCOPES } from '../domain/vocabulary.ts'
import { CreateApiKeySchema, KEY_EXPIRY_MAX_DAYS, type CreateApiKey } from '../schemas/api-key.ts'
import { UsageError } from './usage-error.ts'

// The command line's words for the rules of CreateApiKeySchema, by field.
const KEY_FLAG_RULES: Record<string, string> = {
  name: '--name must be 1-100 characters and not blank',
  scope: `--scope must be ${API_KEY_SCOPES.join(' or ')}`,
  expires_in_days: `--expires-in must be a whole number of days from 1 to ${KEY_EXPIRY_MAX_DAYS}`,
}

let validate: ReturnType<typeof bodyValidator<CreateApiKey>> | undefined

/** The key's scope, name and expiry from the command's options; a UsageError naming the flag otherwise. */
export function keyOptions (input: Record<string, unknown>): CreateApiKey {
  validate ??= bodyValidator<CreateApiKey>(CreateApiKeySchema)
  const result = validate({ ...input })
  if (!result.ok) throw new UsageError(KEY_FLAG_RULES[result.error.field] ?? result.error.message)
  return result.value
}
