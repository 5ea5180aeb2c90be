// An HTTPS check's TLS connection: verified by us rather than by node:tls, so that the certificate is seen
// (its expiry and issuer are recorded on the monitor) even when it fails, and the failure names its cause.
import { buildConnector } from 'undici'
import type { PeerCertificate, TLSSocket } from 'node:tls'

export interface TlsCertificate {
  expiresAt: Date
  /** The issuer's organization and common name, as the certificate gives them; null when it names neither. */
  issuer: string | null
}

/** A verification failure, coded as node:tls codes it, so that describeNetworkError calls it a TLS error. */
class CertificateError extends Error {
  readonly code: string
  constructor (code: string, message: string) {
    super(message)
    this.code = code
  }
}

const day = (date: Date) => date.toISOString().slice(0, 10)

function describeFailure (code: string, cert: PeerCertificate, servername: string): string {
  switch (code) {
    case 'CERT_HAS_EXPIRED': return `certificate expired on ${day(new Date(cert.valid_to))}`
    case 'CERT_NOT_YET_VALID': return `certificate not valid before ${day(new Date(cert.valid_from))}`
    case 'DEPTH_ZERO_SELF_SIGNED_CERT': return 'self-signed certificate'
    case 'SELF_SIGNED_CERT_IN_CHAIN': return 'certificate chain ends in a self-signed root that is not trusted'
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = cert.subjectaltname?.replace(/DNS:|IP Address:/g, '') || cert.subject?.CN || 'another name'
      return `certificate is for ${names}, not ${servername}`
    }
    default: return `certificate not trusted (${code})`
  }
}

function issuerOf (cert: PeerCertificate): string | null {
  const parts = [cert.issuer?.O, cert.issuer?.CN].flat().filter((part): part is string => typeof part === 'string' && part !== '')
  return parts.length > 0 ? [...new Set(parts)].join(', ') : null
}

type Connector = ReturnType<typeof buildConnector>

/** A connector that hands `seen` each connection's certificate and refuses one node:tls did not verify, with its cause. */
export function certificateConnector (base: Connector, seen: (certificate: TlsCertificate) => void): Connector {
  return (options, callback) => base(options, (err, socket) => {
    if (err || !socket || !('getPeerCertificate' in socket)) {
      callback(err as Error, null)
      return
    }
    const tls = socket as TLSSocket
    const cert = tls.getPeerCertificate()
    if (cert?.valid_to) seen({ expiresAt: new Date(cert.valid_to), issuer: issuerOf(cert) })
    if (tls.authorized) {
      callback(null, socket)
      return
    }
    const code = String(tls.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')
    socket.destroy()
    callback(new CertificateError(code, describeFailure(code, cert, options.servername ?? options.hostname)), null)
  })
}

/** Every check's connect timeout: beyond the longest check (timeout_seconds <= 60), so the check's own deadline decides. */
export const CONNECT_TIMEOUT_MS = 61_000

/** The base connector of HTTPS checks: node:tls verifies, we decide (rejectUnauthorized off, see above). */
export function verifyingConnector (ca?: string | Buffer): Connector {
  // No session resumption: each check verifies the certificate afresh (a resumed session skips the host check).
  return buildConnector({ timeout: CONNECT_TIMEOUT_MS, rejectUnauthorized: false, maxCachedSessions: 0, ...(ca ? { ca } : {}) })
}
