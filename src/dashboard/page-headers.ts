// The dashboard's security headers, as @fastify/helmet options: the same values on every page, asset,
// redirect and error page of the dashboard (registered in its context only: the API's answers and /docs
// do not get them).
import type { FastifyHelmetOptions } from '@fastify/helmet'

/**
 * The pages' security headers, and only these: a CSP that lets nothing load from elsewhere, no framing,
 * no type sniffing, the referrer only to this site. Helmet's other headers are off. (Helmet joins the CSP's
 * directives with ';' and no space, which browsers read the same.) Cache-Control: no-store is plugin.ts's.
 */
export const HELMET_OPTIONS: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
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
