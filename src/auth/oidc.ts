// Dashboard sign-in through an OpenID Connect provider, with openid-client: discovery, the authorization code flow
// with PKCE, state and nonce, and the ID token's checks (issuer, audience, signature, expiry). This file speaks the
// protocol only; which user and role a sign-in gives is the service's (services/oidc-sign-in.ts).
import * as oidc from 'openid-client'

export interface OidcSettings { issuerUrl: string, clientId: string, clientSecret: string, redirectUri: string, roleClaim: string }

/** What the browser keeps between leaving for the provider and coming back. */
export interface PendingSignIn { state: string, nonce: string, verifier: string, next: string }

/** Who the provider says signed in: a verified email, and the values of the role claim. */
interface OidcIdentity { email: string, claimValues: string[] }

/** A sign-in the provider or the checks refused; the message is for the person signing in. */
export class OidcSignInError extends Error {}

export interface OidcClient {
  /** Where to send the browser, and what to keep until it comes back. */
  start: (next: string) => Promise<{ url: URL, pending: PendingSignIn }>
  /** Redeems the code of the callback URL (`currentUrl`) against what was kept. */
  finish: (currentUrl: URL, pending: PendingSignIn) => Promise<OidcIdentity>
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

export function oidcClient (settings: OidcSettings): OidcClient {
  const issuer = new URL(settings.issuerUrl)
  // openid-client refuses plain http; a provider on this machine (a test, a local Keycloak) may use it.
  const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname)
  let discovered: Promise<oidc.Configuration> | undefined
  const configuration = () => (discovered ??= oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined,
    insecure ? { execute: [oidc.allowInsecureRequests] } : undefined).catch((err) => {
    discovered = undefined // asked again on the next sign-in
    throw err
  }))

  return {
    async start (next) {
      const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), next }
      const url = oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: settings.redirectUri,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      })
      return { url, pending }
    },

    async finish (currentUrl, pending) {
      let claims: oidc.IDToken | undefined
      try {
        const tokens = await oidc.authorizationCodeGrant(await configuration(), currentUrl, {
          pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true,
        })
        claims = tokens.claims()
      } catch (err) {
        throw new OidcSignInError(refusal(err), { cause: err })
      }
      if (!claims || typeof claims.email !== 'string' || claims.email_verified === false) {
        throw new OidcSignInError('The provider did not give a verified email address.')
      }
      const value = claims[settings.roleClaim]
      const claimValues = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string')
      return { email: claims.email.trim().toLowerCase(), claimValues }
    },
  }
}

/** Why the provider or the checks refused, in words a person can act on. */
function refusal (err: unknown): string {
  if (err instanceof oidc.AuthorizationResponseError) return `The provider refused the sign-in: ${err.error_description ?? err.error}.`
  if (err instanceof oidc.ResponseBodyError) return `The provider refused the sign-in: ${err.error_description ?? err.error}.`
  if ((err as { code?: string }).code === 'OAUTH_INVALID_RESPONSE' || err instanceof oidc.ClientError) {
    return `The provider's answer did not pass the checks: ${(err as Error).message}.`
  }
  return 'The provider could not be reached or did not answer as expected.'
}
