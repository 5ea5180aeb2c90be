// A real OpenID provider on loopback (oidc-provider from npm) for the sign-in tests: its clients, its accounts with
// their groups, an interaction that signs in the account the test names without a form, and a way to expire codes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider'
import type { Teardown } from '../helper.ts'

export interface OidcAccount { email: string, emailVerified?: boolean, groups: string[] }
export interface OidcClientRegistration { clientId: string, clientSecret: string, redirectUri: string }

/** Every stored thing of the provider, by model: the test reaches into it to expire authorization codes. */
const stored = new Map<string, Map<string, AdapterPayload>>()

class MemoryAdapter implements Adapter {
  private readonly items: Map<string, AdapterPayload>
  constructor (name: string) {
    this.items = stored.get(name) ?? new Map()
    stored.set(name, this.items)
  }

  async upsert (id: string, payload: AdapterPayload) { this.items.set(id, payload) }
  async find (id: string) { return this.items.get(id) }
  async findByUid (uid: string) { return [...this.items.values()].find((p) => p.uid === uid) }
  async findByUserCode (code: string) { return [...this.items.values()].find((p) => p.userCode === code) }
  async consume (id: string) { const p = this.items.get(id); if (p) p.consumed = Math.floor(Date.now() / 1000) }
  async destroy (id: string) { this.items.delete(id) }
  async revokeByGrantId (grantId: string) { for (const [id, p] of this.items) if (p.grantId === grantId) this.items.delete(id) }
}

export async function startOidcProvider (t: Teardown, options: { clients: OidcClientRegistration[] }) {
  const accounts = new Map<string, OidcAccount>()
  let signingIn: string | undefined
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    adapter: MemoryAdapter,
    clients: options.clients.map((c) => ({
      client_id: c.clientId, client_secret: c.clientSecret, redirect_uris: [c.redirectUri], grant_types: ['authorization_code'], response_types: ['code'],
    })),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['groups'] },
    // The claims of the scopes asked for go into the ID token, where Pingward reads them.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['a test cookie key of the provider'] },
    async findAccount (_ctx, id) {
      const account = accounts.get(id)
      if (!account) return undefined
      return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.emailVerified ?? true, groups: account.groups }) }
    },
  })
  // The account the test signs in as: granted at once, without a login form or a consent page.
  async function interaction (req: IncomingMessage, res: ServerResponse) {
    const details = await provider.interactionDetails(req, res)
    if (details.prompt.name === 'login') {
      return provider.interactionFinished(req, res, { login: { accountId: signingIn! } }, { mergeWithLastSubmission: false })
    }
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string })
    grant.addOIDCScope('openid email profile')
    return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
  }
  const callback = provider.callback()
  server.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((err) => { res.writeHead(500).end(String(err)) })
    } else {
      callback(req, res)
    }
  })
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))

  /** Follows the provider's redirects from `url` with a cookie jar of its own, until one leaves for `until`. */
  async function authorize (url: string, as: string, until: string): Promise<URL> {
    signingIn = as
    const jar = new Map<string, string>()
    let next = new URL(url)
    for (let hop = 0; hop < 10; hop++) {
      if (next.href.startsWith(until)) return next
      const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } })
      for (const cookie of res.headers.getSetCookie()) {
        const [pair] = cookie.split(';')
        const at = pair.indexOf('=')
        jar.set(pair.slice(0, at), pair.slice(at + 1))
      }
      const location = res.headers.get('location')
      if (!location) throw new Error(`the provider answered ${res.status} at ${next.pathname}: ${await res.text()}`)
      next = new URL(location, next)
    }
    throw new Error('too many redirects at the provider')
  }

  return {
    issuer,
    provider,
    addAccount: (id: string, account: OidcAccount) => { accounts.set(id, account) },
    authorize,
    /** Makes every authorization code issued so far an expired one. */
    expireCodes: () => { for (const code of stored.get('AuthorizationCode')?.values() ?? []) code.exp = Math.floor(Date.now() / 1000) - 1 },
  }
}
