// The API's rule for a URL the service will fetch (a monitor's, a channel's), beyond its schema.
import { InvalidInputError } from '../domain/errors.ts'
import { PRIVATE_TARGET_HINT, privateTargetReason } from './address-policy.ts'

/** Refuses a URL the service cannot or may not fetch; `path` is the field's path in the body, `hint` what the refusal ends with. */
export function assertTargetAllowed (url: string | undefined, allowPrivateTargets: boolean, path = 'url', hint = PRIVATE_TARGET_HINT): void {
  if (url === undefined) return
  const field = path.split('/')[0]
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidInputError(field, `${path} must be an absolute http or https URL of at most 2048 characters`)
  }
  if (parsed.username || parsed.password) throw new InvalidInputError(field, `${path} must not contain credentials`)
  // The URL parser leaves the host of tcp:// and dns:// as written (`127.1`); read as http, it is normalized.
  if (!/^https?:$/i.test(parsed.protocol)) parsed = new URL(`http:${url.slice(parsed.protocol.length)}`)
  const reason = allowPrivateTargets ? undefined : privateTargetReason(parsed)
  if (reason) throw new InvalidInputError(field, `${path}: ${reason}; ${hint}`)
}
