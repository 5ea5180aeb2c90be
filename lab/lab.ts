// The lab (issue 46, docs/locations.md): Pingward outside, a target in a namespace of its own, and one probe agent per
// site in its own namespace, each site's way to the target impaired on demand. Tests and `npm run lab` both start it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createLabNetwork, type LabNetwork, type LabSite } from './network.ts'

export { labUnavailable } from './network.ts'

interface LabSiteOptions {
  /** The agent location's code. */
  code: string
  /** Added to each of the site's HTTP checks of the target. */
  delayMs?: number
  /** How far the agent's clock is off (by libfaketime): the agent takes the server's clock from its hello. */
  clockSkewMs?: number
}

export interface LabOptions {
  /** The API as this machine reaches it, `http://127.0.0.1:3000`: the lab relays each site's agent to it. */
  server: string
  /** A key of an admin of the organization the lab's locations are made in (a location taken is given a new token). */
  apiKey: string
  sites: LabSiteOptions[]
}

export interface Lab {
  network: LabNetwork
  /** The URL a monitor of the lab checks: the same target from every site. */
  targetUrl: string
  /** Each site's agent token. */
  tokens: Map<string, string>
  /** Sets a site's delay or loss toward the target, the other kept (without netem: the target's delay, a loss of 0 or 100%). */
  impair: (code: string, impairment: { delayMs?: number, lossPercent?: number }) => void
  /** Stops a site's agent: SIGTERM lets it send what it has; SIGKILL is an agent that dies. */
  stopAgent: (code: string, signal?: 'SIGTERM' | 'SIGKILL') => Promise<void>
  /** Starts a site's agent (again) and resolves once it has said hello. */
  startAgent: (code: string) => Promise<void>
  /** What a site's agent has printed so far. */
  agentOutput: (code: string) => string
  close: () => Promise<void>
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const TARGET_PORT = 8080

interface Running {
  child: ChildProcessWithoutNullStreams
  output: string
  exited: Promise<void>
}

/** A child whose output is kept, and a wait for a line of it. */
function run (command: string[], env: Record<string, string> = {}): Running {
  const child = spawn(command[0], command.slice(1), { cwd: ROOT, env: { ...process.env, ...env } })
  const running: Running = { child, output: '', exited: new Promise((resolve) => child.on('close', () => resolve())) }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { running.output += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { running.output += chunk })
  return running
}

function outputOf (running: Running, pattern: RegExp, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(running.output)) done()
      else if (running.child.exitCode !== null || running.child.signalCode !== null) done(new Error(`${what} exited before it was ready:\n${running.output.slice(-2000)}`))
    }
    const done = (err?: Error) => {
      running.child.stdout.off('data', check)
      running.child.stderr.off('data', check)
      running.child.off('close', check)
      if (err) reject(err)
      else resolve()
    }
    running.child.stdout.on('data', check)
    running.child.stderr.on('data', check)
    running.child.on('close', check)
    check()
  })
}

// Ahead of the machine's other work (root may raise it): a site's latency is its delay, not the machine's load.
const node = (script: string, args: string[] = []) =>
  ['/usr/bin/env', '-u', 'NODE_OPTIONS', 'nice', '-n', '-10', process.execPath, '--import=tsx', script, ...args]

/** Debian's libfaketime, which sets a process's wall clock off and leaves its monotonic clock alone. */
function faketimeEnv (skewMs: number): Record<string, string> {
  const library = readdirSync('/usr/lib', { withFileTypes: true })
    .map((entry) => join('/usr/lib', entry.name, 'faketime', 'libfaketime.so.1'))
    .find((path) => existsSync(path))
  if (!library) throw new Error('a clock skew takes libfaketime: apt-get install faketime')
  return { LD_PRELOAD: library, FAKETIME: `${skewMs >= 0 ? '+' : '-'}${Math.abs(skewMs) / 1000}s`, FAKETIME_DONT_FAKE_MONOTONIC: '1' }
}

/** A TCP relay on `host` to the API: the agents' namespaces cannot reach the host's loopback. */
async function relay (host: string, to: URL): Promise<{ port: number, close: () => Promise<void> }> {
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy())
  }
  const server: Server = createServer((client) => {
    track(client)
    const upstream = createConnection(Number(to.port || (to.protocol === 'https:' ? 443 : 80)), to.hostname)
    track(upstream)
    client.pipe(upstream).pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    }),
  }
}

/** Makes an agent location of each site's code (or gives a taken one a new token) and returns the tokens. */
async function locationTokens (options: LabOptions): Promise<Map<string, string>> {
  const api = async (path: string, body: object) => {
    const res = await fetch(new URL(`/api/v1${path}`, options.server), {
      method: 'POST', headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() as { data?: { agent_token: string }, error?: string } }
  }
  const tokens = new Map<string, string>()
  for (const { code } of options.sites) {
    let made = await api('/locations', { code, name: `Lab ${code}` })
    if (made.status === 409) made = await api(`/locations/${code}/rotate-token`, {})
    if (!made.body.data) throw new Error(`the location ${code} could not be made (${made.status}): ${made.body.error}`)
    tokens.set(code, made.body.data.agent_token)
  }
  return tokens
}

export async function startLab (options: LabOptions): Promise<Lab> {
  const tokens = await locationTokens(options)
  const network = createLabNetwork(options.sites.map((site) => site.code))
  const relays: Array<Awaited<ReturnType<typeof relay>>> = []
  const agents = new Map<string, Running>()
  let target: Running | undefined
  const siteOf = (code: string): { site: LabSite, options: LabSiteOptions, relayPort: number } => {
    const index = options.sites.findIndex((site) => site.code === code)
    if (index === -1) throw new Error(`no lab site ${code}`)
    return { site: network.sites[index], options: options.sites[index], relayPort: relays[index].port }
  }

  const stopAgent: Lab['stopAgent'] = async (code, signal = 'SIGTERM') => {
    const agent = agents.get(code)
    agents.delete(code)
    if (!agent) return
    agent.child.kill(signal)
    await agent.exited
  }
  const startAgent: Lab['startAgent'] = async (code) => {
    await stopAgent(code)
    const { site, options: siteOptions, relayPort } = siteOf(code)
    const agent = run(network.inNamespace(site.namespace, node('src/agent.ts', ['--server', `http://${site.hostAddress}:${relayPort}`, '--allow-private-targets'])), {
      PINGWARD_AGENT_TOKEN: tokens.get(code)!,
      LOG_LEVEL: 'info',
      ...(siteOptions.clockSkewMs && faketimeEnv(siteOptions.clockSkewMs)),
    })
    agents.set(code, agent)
    await outputOf(agent, /agent: hello/, `the agent of ${code}`)
  }
  const close = async () => {
    await Promise.all([...agents.keys()].map((code) => stopAgent(code, 'SIGKILL')))
    target?.child.kill('SIGKILL')
    await target?.exited
    await Promise.all(relays.map((r) => r.close()))
    network.close()
  }

  try {
    target = run(network.inNamespace(network.targetNamespace, node('lab/target.ts', [network.targetAddress, String(TARGET_PORT)])))
    await outputOf(target, /^listening$/m, 'the lab target')
    for (const site of network.sites) relays.push(await relay(site.hostAddress, new URL(options.server)))
    // Each site's impairment as last set: one setting changed keeps the other.
    const impairments = new Map(options.sites.map((site) => [site.code, { delayMs: site.delayMs ?? 0, lossPercent: 0 }]))
    const impair: Lab['impair'] = (code, change) => {
      const { site } = siteOf(code)
      const { delayMs, lossPercent } = { ...impairments.get(code)!, ...change }
      if (!network.netem && lossPercent !== 0 && lossPercent !== 100) throw new Error('without netem the lab loses 0% or 100% of a site\'s packets, nothing between')
      impairments.set(code, { delayMs, lossPercent })
      if (network.netem) return network.applyNetem(site, { delayMs, lossPercent })
      target!.child.stdin.write(`delay ${site.sourceAddress} ${delayMs}\n`)
      network.setTargetLink(site, lossPercent === 0)
    }
    for (const site of options.sites) impair(site.code, {})
    await Promise.all(options.sites.map((site) => startAgent(site.code)))
    return {
      network,
      targetUrl: `http://${network.targetAddress}:${TARGET_PORT}/`,
      tokens,
      impair,
      stopAgent,
      startAgent,
      agentOutput: (code) => agents.get(code)?.output ?? '',
      close,
    }
  } catch (err) {
    await close()
    throw err
  }
}
