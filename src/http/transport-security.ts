// The headers that hold only over https: HSTS and the CSP's upgrade-insecure-requests, sent only when the request
// arrived over https (directly, or through a proxy trusted by TRUST_PROXY), so http://<LAN address> works too.
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A year, without includeSubDomains: Pingward speaks for its own host name, not for the names under it. */
export const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

// Over plain http, upgrade-insecure-requests would send every asset to https://<same host>: a blank page on a LAN.
export function arrivedOverHttps (request: FastifyRequest): boolean {
  return request.protocol === 'https'
}

/** Swagger UI's own CSP (its `staticCSP: true`), set on arrival so that every answer under /docs carries it. */
export async function swaggerUiHeaders (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const https = arrivedOverHttps(request)
  reply.header('content-security-policy', https ? `${SWAGGER_UI_CSP} upgrade-insecure-requests;` : SWAGGER_UI_CSP)
  if (https) reply.header('strict-transport-security', `max-age=${HSTS_MAX_AGE_SECONDS}`)
}

// The hash is of the one inline <style> Swagger UI writes, in its top bar's logo (swagger-ui-standalone-preset.js); a new
// version's is named by Chromium's console error, which test/e2e/csp-console.test.ts reports.
const SWAGGER_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"
const SWAGGER_UI_CSP = "default-src 'self'; base-uri 'self'; font-src 'self' https: data:; frame-ancestors 'self'; " +
  `img-src 'self' data: validator.swagger.io; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' https: ${SWAGGER_LOGO_STYLE};`
