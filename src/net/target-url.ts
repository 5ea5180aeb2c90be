// The API's rule for a URL the service will fetch (a monitor's, a channel's) beyond its schema: one it can fetch and may fetch.
import { InvalidInputError } from '../domain/errors.ts'
import { PRIVATE_TARGET_HINT, privateTargetReason } from './address-policy.ts'

/**
 * Refuses a URL the service could never fetch, or may not fetch, with a message that names the field and
 * the rule. `path` is the field's path in the body (`url`, `config/webhook_url`); its first part is the
 * error's field.
 */
export function assertTargetAllowed (url: string | undefined, allowPrivateTargets: boolean, path = 'url'): void {
  if (url === undefined) return
  const field = path.split('/')[0]
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidInputError(field, `body/${path} must be an absolute http or https URL of at most 2048 characters`)
  }
  if (parsed.username || parsed.password) throw new InvalidInputError(field, `body/${path} must not contain credentials`)
  // tcp:// and dns:// are not schemes the URL parser knows: their host is taken as written (`127.1`). Read as
  // http, it is normalized as the checker's connect will see it (`127.0.0.1`).
  if (!/^https?:$/i.test(parsed.protocol)) parsed = new URL(`http:${url.slice(parsed.protocol.length)}`)
  const reason = allowPrivateTargets ? undefined : privateTargetReason(parsed)
  if (reason) throw new InvalidInputError(field, `body/${path}: ${reason}; ${PRIVATE_TARGET_HINT}`)
}
