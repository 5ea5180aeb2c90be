// The dashboard's security headers as @fastify/helmet options, in its context only (not the API's answers or /docs).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyHelmetOptions } from '@fastify/helmet'
import { arrivedOverHttps, HSTS_MAX_AGE_SECONDS } from '../http/transport-security.ts'

const DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  // The live updates' event stream and page fetches (assets/dashboard.js).
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
}

/** Nothing loads from elsewhere, no framing or sniffing; not global, as `pageHeaders` adds per request what depends on https. */
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

/** Merged over HELMET_OPTIONS over https only: on plain http to a LAN address they would break the dashboard. */
const OVER_HTTPS: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { ...DIRECTIVES, upgradeInsecureRequests: [] } },
  strictTransportSecurity: { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: false },
}

/** An onRequest hook after helmet's registration: the headers of this request. */
export async function pageHeaders (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.helmet(arrivedOverHttps(request) ? OVER_HTTPS : undefined)
}
