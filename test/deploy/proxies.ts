// Real reverse proxies for the deploy tests: Debian's nginx and Caddy run as children of the test (never as
// services) from the very files docs/deploy.md shows (docs/deploy/), with only the ports, certificate paths and
// upstream substituted, on a self-signed certificate for localhost. Plus an HTTPS client that can connect
// from a chosen loopback address, so that one machine plays several clients.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, request as undiciRequest, type Dispatcher } from 'undici'
import { childEnv, tempDir, until, type Teardown } from '../helper.ts'
import { freePort, selfSignedCertificate } from '../support/target-server.ts'

export const NGINX = '/usr/sbin/nginx'
export const CADDY = '/usr/bin/caddy'
const DOCS = new URL('../../docs/deploy/', import.meta.url)

/** The tap `skip` of a test that needs `binary`: never skipped in CI, where a missing proxy must fail the run. */
export function skipWithout (binary: string, pkg: string): false | string {
  if (existsSync(binary) || process.env.CI) return false
  return `${binary} is missing: install Debian's ${pkg} (apt-get install ${pkg}; .ci/run does)`
}

/** docs/deploy/<name> with each `[from, to]` replaced; each `from` must occur exactly once, so the docs cannot drift away from the test. */
function documentedConfig (name: string, replacements: Array<[string, string]>): string {
  let text = readFileSync(new URL(name, DOCS), 'utf8')
  for (const [from, to] of replacements) {
    const count = text.split(from).length - 1
    if (count !== 1) throw new Error(`docs/deploy/${name}: expected "${from}" once, found it ${count} times`)
    text = text.replace(from, () => to)
  }
  return text
}

export interface Proxy {
  /** `https://localhost:PORT`, as a browser would open it. */
  url: string
  port: number
  /** The plain-http port (nginx's redirect). */
  httpPort: number
  /** What the proxy wrote to its stdout and stderr so far. */
  output: () => string
}

/** Runs `command` until the test ends (SIGTERM, then waits for its exit) and resolves once `url`/healthz answers through it. */
async function runProxy (t: Teardown, command: string, args: string[], env: NodeJS.ProcessEnv, proxy: Omit<Proxy, 'output'>): Promise<Proxy> {
  let output = ''
  const child: ChildProcess = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  })
  const client = httpsClient(t)
  // Asked until it answers: the proxy is up and reaches the server. A proxy that exits fails at once.
  await until(async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${command} exited (${child.exitCode ?? child.signalCode}):\n${output}`)
    return client(`${proxy.url}/healthz`).then((res) => res.status === 200, () => false)
  })
  return { ...proxy, output: () => output }
}

/** nginx with docs/deploy/nginx.conf (TLS on `port`, the redirect on `httpPort`) in front of 127.0.0.1:`upstreamPort`. */
export async function startNginx (t: Teardown, upstreamPort: number): Promise<Proxy> {
  const dir = tempDir(t, 'pingward-nginx-')
  const { key, cert } = selfSignedCertificate()
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  const [port, httpPort] = [await freePort(), await freePort()]
  const site = documentedConfig('nginx.conf', [
    ['listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`],
    ['listen 80;', `listen 127.0.0.1:${httpPort};`],
    ['/etc/letsencrypt/live/pingward.example.com/fullchain.pem', join(dir, 'cert.pem')],
    ['/etc/letsencrypt/live/pingward.example.com/privkey.pem', join(dir, 'key.pem')],
    ['http://127.0.0.1:3000;', `http://127.0.0.1:${upstreamPort};`],
  ])
  writeFileSync(join(dir, 'site.conf'), site)
  // What /etc/nginx/nginx.conf would give, in the temp dir: one process as the current user (no master
  // dropping privileges), its pid, logs and temp files here.
  writeFileSync(join(dir, 'nginx.conf'), `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/site.conf;
}
`)
  const proxy = await runProxy(t, NGINX, ['-p', dir, '-e', join(dir, 'error.log'), '-c', join(dir, 'nginx.conf')],
    process.env, { url: `https://localhost:${port}`, port, httpPort })
  return { ...proxy, output: () => `${proxy.output()}${readFileSync(join(dir, 'error.log'), 'utf8')}` }
}

/** Caddy with docs/deploy/Caddyfile, serving https://localhost:`port` on the self-signed certificate, in front of 127.0.0.1:`upstreamPort`. */
export async function startCaddy (t: Teardown, upstreamPort: number): Promise<Proxy> {
  const dir = tempDir(t, 'pingward-caddy-')
  const { key, cert } = selfSignedCertificate()
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  const [port, httpPort] = [await freePort(), await freePort()]
  const site = documentedConfig('Caddyfile', [
    // The site's name is the address browsers use; its certificate is ours instead of Let's Encrypt's.
    ['pingward.example.com {', `https://localhost:${port} {\n\ttls ${join(dir, 'cert.pem')} ${join(dir, 'key.pem')}`],
    ['reverse_proxy 127.0.0.1:3000', `reverse_proxy 127.0.0.1:${upstreamPort}`],
  ])
  // Global options for a test: no admin endpoint (no port to collide on), the redirect listener on a free port
  // instead of 80; its certificates and state under HOME.
  writeFileSync(join(dir, 'Caddyfile'), `{\n\tadmin off\n\thttp_port ${httpPort}\n}\n\n${site}`)
  const env = childEnv({ HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') })
  return runProxy(t, CADDY, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], env,
    { url: `https://localhost:${port}`, port, httpPort })
}

/**
 * Caddy with docs/deploy/Caddyfile.custom-domains: the dashboard's site as startCaddy's, and every other name on the same
 * port with a certificate on demand from Caddy's own CA (`tls internal`, no ACME), whose root `caRoot` reads.
 */
export async function startCaddyForCustomDomains (t: Teardown, upstreamPort: number): Promise<Proxy & { caRoot: () => string }> {
  const dir = tempDir(t, 'pingward-caddy-')
  const { key, cert } = selfSignedCertificate()
  writeFileSync(join(dir, 'cert.pem'), cert)
  writeFileSync(join(dir, 'key.pem'), key)
  const [port, httpPort] = [await freePort(), await freePort()]
  const config = documentedConfig('Caddyfile.custom-domains', [
    // As startCaddy's, with every site on the one port, and Caddy's CA trusted by no one but the test.
    ['{\n\ton_demand_tls {', `{\n\tadmin off\n\thttp_port ${httpPort}\n\thttps_port ${port}\n\tskip_install_trust\n\ton_demand_tls {`],
    ['ask http://127.0.0.1:3000/', `ask http://127.0.0.1:${upstreamPort}/`],
    ['reverse_proxy 127.0.0.1:3000', `reverse_proxy 127.0.0.1:${upstreamPort}`],
    ['pingward.example.com {', `https://localhost:${port} {\n\ttls ${join(dir, 'cert.pem')} ${join(dir, 'key.pem')}`],
    ['\ttls {\n\t\ton_demand', '\ttls internal {\n\t\ton_demand'],
  ])
  writeFileSync(join(dir, 'Caddyfile'), config)
  const env = childEnv({ HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') })
  const proxy = await runProxy(t, CADDY, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], env,
    { url: `https://localhost:${port}`, port, httpPort })
  return { ...proxy, caRoot: () => readFileSync(join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt'), 'utf8') }
}

export interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string }

/**
 * A client that trusts any certificate (ours is self-signed) and connects from `localAddress` (any of
 * 127.0.0.0/8 on Linux), so that the proxy sees a different client per address. Closed with the test.
 */
export function httpsClient (t: Teardown, localAddress?: string) {
  const dispatcher: Dispatcher = new Agent({ connect: { rejectUnauthorized: false }, ...(localAddress ? { localAddress } : {}) })
  t.teardown(() => dispatcher.close())
  return async (url: string, options: { method?: Dispatcher.HttpMethod, headers?: Record<string, string>, body?: string } = {}): Promise<Answer> => {
    const res = await undiciRequest(url, { dispatcher, ...options })
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() }
  }
}

/** The Set-Cookie headers of an answer, as a list. */
export const setCookies = (answer: Answer): string[] => [answer.headers['set-cookie'] ?? []].flat()
