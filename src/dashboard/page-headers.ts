// The dashboard's security headers, as @fastify/helmet options: the same values on every page, asset,
// redirect and error page of the dashboard (registered in its context only: the API's answers and /docs
// do not get them), plus HSTS and upgrade-insecure-requests when the request arrived over https.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyHelmetOptions } from '@fastify/helmet'
import { arrivedOverHttps, HSTS_MAX_AGE_SECONDS } from '../http/transport-security.ts'

const DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
}

/**
 * The pages' security headers, and only these: a CSP that lets nothing load from elsewhere, no framing,
 * no type sniffing, the referrer only to this site. Helmet's other headers are off. (Helmet joins the CSP's
 * directives with ';' and no space, which browsers read the same.) Cache-Control: no-store is plugin.ts's.
 * Not global: `pageHeaders` applies them, choosing per request what depends on https.
 */
export const HELMET_OPTIONS: FastifyHelmetOptions = {
  global: false,
  contentSecurityPolicy: { useDefaults: false, directives: DIRECTIVES },
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
  crossOriginResourcePolicy: false,
  originAgentCluster: false,
  strictTransportSecurity: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xPoweredBy: false,
  xXssProtection: false,
}

/** What changes over https (merged over HELMET_OPTIONS by reply.helmet()). Over plain http on a LAN address
 * both would break the dashboard or mean nothing; see src/http/transport-security.ts. */
const OVER_HTTPS: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { ...DIRECTIVES, upgradeInsecureRequests: [] } },
  strictTransportSecurity: { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: false },
}

/** An onRequest hook after helmet's registration: the headers of this request. */
export async function pageHeaders (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.helmet(arrivedOverHttps(request) ? OVER_HTTPS : undefined)
}
