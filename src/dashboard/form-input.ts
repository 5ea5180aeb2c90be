// Form strings to API input: converted to the schema's types, then checked by the API's own schemas,
// validator and message formatter, and the API's target rule, so the dashboard has no rules of its own.
import { InvalidInputError } from '../domain/errors.ts'
import { assertTargetAllowed } from '../net/target-url.ts'
import { CreateApiKeySchema, type CreateApiKey } from '../schemas/api-key.ts'
import { CreateMonitorSchema, UpdateMonitorSchema, type NewMonitor, type UpdateMonitor } from '../schemas/monitor.ts'
import { bodyValidator, type Validated } from '../http/validation.ts'

export type FormFields = Record<string, string | undefined>

const validateCreateMonitor = bodyValidator<NewMonitor>(CreateMonitorSchema)
const validateUpdateMonitor = bodyValidator<UpdateMonitor>(UpdateMonitorSchema)
const validateCreateKey = bodyValidator<CreateApiKey>(CreateApiKeySchema)

const MONITOR_INTEGER_FIELDS = [
  'expected_status', 'interval_minutes', 'timeout_seconds', 'failure_threshold', 'recovery_threshold',
] as const

/**
 * A number typed into a form becomes a number; anything else stays text, so that the schema says
 * "must be integer" for "abc" or "1.5" just as the API would. An empty field is left out.
 */
function putNumber (input: Record<string, unknown>, name: string, value: string | undefined) {
  const text = value?.trim()
  if (text === undefined || text === '') return
  input[name] = /^[+-]?\d+(\.\d+)?$/.test(text) && text.length <= 20 ? Number(text) : text
}

/** The form's name of a notification channel's checkbox (one per channel: the form parser keeps one value per name). */
export const channelFieldName = (id: string) => `channel:${id}`

/** Only the monitor's writable fields are taken from the form; a checkbox that is not sent is false. */
function monitorInputFromForm (form: FormFields): Record<string, unknown> {
  const input: Record<string, unknown> = {}
  if (form.name !== undefined) input.name = form.name
  if (form.url !== undefined) input.url = form.url.trim()
  if (form.method !== undefined) input.method = form.method
  for (const name of MONITOR_INTEGER_FIELDS) putNumber(input, name, form[name])
  input.is_active = form.is_active === 'on'
  // The ticked channels; whether each is the user's is the repository's check, as for the API.
  const prefix = channelFieldName('')
  input.notification_channel_ids = Object.keys(form).filter((name) => name.startsWith(prefix) && form[name] === 'on').map((name) => name.slice(prefix.length))
  return input
}

function withTargetRule<T extends { url?: string }> (result: Validated<T>, allowPrivateTargets: boolean): Validated<T> {
  if (!result.ok) return result
  try {
    assertTargetAllowed(result.value.url, allowPrivateTargets)
    return result
  } catch (err) {
    if (!(err instanceof InvalidInputError)) throw err
    return { ok: false, error: { field: err.field, message: err.message } }
  }
}

export function parseCreateMonitor (form: FormFields, allowPrivateTargets: boolean): Validated<NewMonitor> {
  return withTargetRule(validateCreateMonitor(monitorInputFromForm(form)), allowPrivateTargets)
}

export function parseUpdateMonitor (form: FormFields, allowPrivateTargets: boolean): Validated<UpdateMonitor> {
  return withTargetRule(validateUpdateMonitor(monitorInputFromForm(form)), allowPrivateTargets)
}

export function parseCreateKey (form: FormFields): Validated<CreateApiKey> {
  const input: Record<string, unknown> = { name: (form.name ?? '').trim(), scope: form.scope ?? '' }
  putNumber(input, 'expires_in_days', form.expires_in_days)
  return validateCreateKey(input)
}
