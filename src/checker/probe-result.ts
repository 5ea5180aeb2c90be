// What one check of a monitor saw, whatever its kind (http, tcp, dns).
import type { TlsCertificate } from './tls-certificate.ts'

export interface ProbeResult {
  /** True exactly when a final response arrived with statusCode === expectedStatus and its body passed the keyword. */
  isUp: boolean
  /** Up, but slower than the monitor allows; errorMessage then says by how much. */
  degraded: boolean
  /** Status of the response that ended the check (the final one, or a redirect not followed); null when none did. */
  statusCode: number | null
  responseTimeMs: number // integer ms from the start until the final response's headers (or the failure)
  errorMessage: string | null // null when up and not degraded; else one line saying what happened
  /** The certificate of the check's first HTTPS connection, verified or not; absent without one. */
  tls?: TlsCertificate
}
