// An app whose DNS is a test server of ours, with a team and its helpers for status pages on custom domains.
import type { Test } from 'tap'
import { buildTestApp, makeTeam, request } from '../helper.ts'
import { dnsServer, type ZoneEntry } from './dns-server.ts'

export const DOMAIN = 'status.acme.test'
export const PUBLIC_URL = 'https://pingward.example.com'

export async function customDomainApp (t: Test, env: Record<string, string> = {}) {
  const zone: Record<string, ZoneEntry> = {}
  const dns = await dnsServer(t, zone)
  const { app, database } = await buildTestApp(t, { env: { DNS_SERVERS: dns.server, PUBLIC_URL, ...env } })
  const team = await makeTeam(app)
  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>, auth = team.auth) =>
    request(app, auth, { method, url: `/api/v1${url}`, ...(payload === undefined ? {} : { payload }) })
  const makePage = async (body: Record<string, unknown>, auth = team.auth) => {
    const made = await api('POST', '/status-pages', { slug: `acme-${Math.random().toString(36).slice(2, 8)}`, title: 'Acme status', published: true, ...body }, auth)
    if (made.statusCode !== 201) throw new Error(`page: ${made.statusCode} ${made.body}`)
    return made.json().data as { id: string, slug: string, domain_txt_record: string }
  }
  const publish = (domain: string, ...records: string[][]) => { zone[`_pingward.${domain}`] = { TXT: records } }
  const onHost = (host: string, url = '/', headers: Record<string, string> = {}) => app.inject({ url, headers: { host, ...headers } })
  return { app, database, dns, team, api, makePage, publish, onHost }
}
