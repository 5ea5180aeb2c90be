// The API's rule for a monitor's URL beyond its schema: one the checker can fetch and may fetch.
import { InvalidInputError } from '../domain/errors.ts'
import { PRIVATE_TARGET_HINT, privateTargetReason } from './address-policy.ts'

/** Refuses a URL the checker could never fetch, or may not fetch, with a message that names the field and the rule. */
export function assertTargetAllowed (url: string | undefined, allowPrivateTargets: boolean): void {
  if (url === undefined) return
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new InvalidInputError('url', 'body/url must be an absolute http or https URL of at most 2048 characters')
  }
  if (parsed.username || parsed.password) throw new InvalidInputError('url', 'body/url must not contain credentials')
  const reason = allowPrivateTargets ? undefined : privateTargetReason(parsed)
  if (reason) throw new InvalidInputError('url', `body/url: ${reason}; ${PRIVATE_TARGET_HINT}`)
}
