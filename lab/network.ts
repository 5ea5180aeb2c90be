// The lab's network (issue 46): a target namespace and one namespace per site, each site linked to the host (the way
// to the API) and to the target (the way it checks), with what impairs a site's link to the target.
import { execFileSync } from 'node:child_process'

export interface LabSite {
  name: string
  namespace: string
  /** The host's end of the site's link to the host: where the site reaches the API. */
  hostAddress: string
  /** The site's address as the target sees it. */
  sourceAddress: string
  /** The site's end of its link to the target, where netem sits. */
  targetLinkDevice: string
  /** The target's end of that link, taken down to cut the site off where there is no netem. */
  targetPeerDevice: string
}

export interface LabNetwork {
  targetNamespace: string
  /** The one address every site reaches the target at. */
  targetAddress: string
  sites: LabSite[]
  /** Whether this kernel has netem (some are built without sch_netem). */
  netem: boolean
  /** A site's delay (added to each HTTP check) and loss toward the target, by netem. */
  applyNetem: (site: LabSite, impairment: { delayMs: number, lossPercent: number }) => void
  /** Takes the target's end of a site's link down (every packet lost, as a dead network loses them) or up again. */
  setTargetLink: (site: LabSite, up: boolean) => void
  /** The command line that runs a program in a site's or the target's namespace. */
  inNamespace: (namespace: string, command: string[]) => string[]
  close: () => void
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] })
const quietly = (run: () => unknown) => { try { run() } catch { /* already gone */ } }

/** Why this machine cannot hold the lab (not root, no network namespaces), or undefined when it can. */
export function labUnavailable (): string | undefined {
  if (process.getuid?.() !== 0) return 'the lab makes network namespaces, which takes root'
  const probe = `pwprobe${process.pid}`
  try {
    ip('netns', 'add', probe)
  } catch (err) {
    return `this kernel refuses network namespaces (ip netns add: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()})`
  } finally {
    quietly(() => ip('netns', 'del', probe))
  }
  return undefined
}

/** Whether `tc qdisc ... netem` works here: some kernels are built without sch_netem. */
function hasNetem (namespace: string, device: string): boolean {
  try {
    ip('netns', 'exec', namespace, 'tc', 'qdisc', 'add', 'dev', device, 'root', 'netem', 'delay', '1ms')
    ip('netns', 'exec', namespace, 'tc', 'qdisc', 'del', 'dev', device, 'root')
    return true
  } catch {
    return false
  }
}

/** Makes the namespaces and links of `names.length` sites; `id` keeps two labs on one machine apart. */
export function createLabNetwork (names: string[], id = process.pid % 100): LabNetwork {
  const net = 100 + id
  const prefix = `pwlab${id}`
  const targetNamespace = `${prefix}-t`
  const targetAddress = `10.${net}.0.1`
  const sites: LabSite[] = names.map((name, index) => ({
    name,
    namespace: `${prefix}-${index + 1}`,
    hostAddress: `10.${net}.${index + 1}.1`,
    sourceAddress: `10.${net}.${index + 101}.1`,
    targetLinkDevice: `pl${id}d${index + 1}`,
    targetPeerDevice: `pl${id}t${index + 1}`,
  }))
  const namespaces = [targetNamespace, ...sites.map((site) => site.namespace)]
  const close = () => {
    for (const namespace of namespaces) {
      // What still runs there (agents and a target of a lab killed before its end) goes with it.
      quietly(() => {
        for (const pid of String(execFileSync('ip', ['netns', 'pids', namespace], { stdio: ['ignore', 'pipe', 'ignore'] })).split(/\s+/).filter(Boolean)) {
          quietly(() => process.kill(Number(pid), 'SIGKILL'))
        }
      })
      quietly(() => ip('netns', 'del', namespace))
    }
    for (const index of sites.keys()) quietly(() => ip('link', 'del', `pl${id}h${index + 1}`))
  }
  close() // what a lab killed before its end left behind
  try {
    for (const namespace of namespaces) {
      ip('netns', 'add', namespace)
      ip('-n', namespace, 'link', 'set', 'lo', 'up')
    }
    ip('-n', targetNamespace, 'addr', 'add', `${targetAddress}/32`, 'dev', 'lo')
    for (const [index, site] of sites.entries()) {
      const hostDevice = `pl${id}h${index + 1}`
      const siteUplink = `pl${id}u${index + 1}`
      ip('link', 'add', hostDevice, 'type', 'veth', 'peer', 'name', siteUplink, 'netns', site.namespace)
      ip('addr', 'add', `${site.hostAddress}/24`, 'dev', hostDevice)
      ip('link', 'set', hostDevice, 'up')
      ip('-n', site.namespace, 'addr', 'add', `10.${net}.${index + 1}.2/24`, 'dev', siteUplink)
      ip('-n', site.namespace, 'link', 'set', siteUplink, 'up')
      ip('-n', site.namespace, 'route', 'add', 'default', 'via', site.hostAddress)

      ip('-n', site.namespace, 'link', 'add', site.targetLinkDevice, 'type', 'veth', 'peer', 'name', site.targetPeerDevice, 'netns', targetNamespace)
      ip('-n', site.namespace, 'addr', 'add', `${site.sourceAddress}/24`, 'dev', site.targetLinkDevice)
      ip('-n', site.namespace, 'link', 'set', site.targetLinkDevice, 'up')
      ip('-n', targetNamespace, 'addr', 'add', `10.${net}.${index + 101}.2/24`, 'dev', site.targetPeerDevice)
      ip('-n', targetNamespace, 'link', 'set', site.targetPeerDevice, 'up')
      ip('-n', site.namespace, 'route', 'add', `${targetAddress}/32`, 'via', `10.${net}.${index + 101}.2`)
    }
  } catch (err) {
    close()
    throw new Error(`the lab's network could not be made: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`)
  }
  const netem = sites.length > 0 && hasNetem(sites[0].namespace, sites[0].targetLinkDevice)

  return {
    targetNamespace,
    targetAddress,
    sites,
    netem,
    // An HTTP check on a new connection takes two round trips: half the delay on each, on the site's side.
    applyNetem: (site, { delayMs, lossPercent }) => ip('netns', 'exec', site.namespace, 'tc', 'qdisc', 'replace', 'dev', site.targetLinkDevice,
      'root', 'netem', 'delay', `${delayMs / 2}ms`, 'loss', `${lossPercent}%`),
    setTargetLink: (site, up) => ip('-n', targetNamespace, 'link', 'set', site.targetPeerDevice, up ? 'up' : 'down'),
    inNamespace: (namespace, command) => ['ip', 'netns', 'exec', namespace, ...command],
    close,
  }
}
