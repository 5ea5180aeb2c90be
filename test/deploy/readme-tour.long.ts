// The README's two-minute tour runs as written, each block in a shell of its own, in a fresh clone after its build,
// on the README's default, the embedded database (childEnv leaves DATABASE_URL out). It waits for checks a minute
// apart, four times: a long test, run once.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import t from 'tap'
import { childEnv, outputWaiter, until, type Teardown } from '../helper.ts'
import { freePort } from '../support/target-server.ts'
import { builtProjectCopy } from '../support/project-copy.ts'

t.setTimeout(900_000)
const root = new URL('../../', import.meta.url)

/** The `sh` code blocks of the markdown section headed `## title`, in order. */
function sectionBlocks (markdown: string, title: string): string[] {
  const start = markdown.indexOf(`\n## ${title}\n`)
  if (start < 0) throw new Error(`no section "${title}"`)
  const end = markdown.indexOf('\n## ', start + 1)
  return [...markdown.slice(start, end < 0 ? undefined : end).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1])
}

/**
 * A terminal: bash reading `script` (or, without one, the commands given to `run`) in the clone, in a process group
 * of its own so that `interrupt` is a Ctrl-C to all of it. `run` types a block and resolves with what it printed.
 */
function terminal (t: Teardown, cwd: string, vars: Record<string, string>, script?: string) {
  // env -u: tap's process tracking re-adds NODE_OPTIONS to spawns.
  const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', 'bash', ...(script === undefined ? [] : ['-c', script])],
    { cwd, env: childEnv(vars), detached: true })
  let output = ''
  const { wake, waitFor } = outputWaiter(child, () => output, () => `output: ${output}`)
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; wake() })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; wake() })
  const closed = new Promise<void>((resolve) => child.on('close', () => { wake(); resolve() }))
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name)
    } catch {
      // the group is gone
    }
  }
  t.teardown(async () => {
    signal('SIGKILL')
    await closed
  })
  let commands = 0
  return {
    waitFor,
    output: () => output,
    async run (block: string): Promise<string> {
      const from = output.length
      const done = `::done ${++commands}`
      // On a line of its own: curl's output ends without a newline.
      child.stdin.write(`${block}\nprintf '\\n${done}\\n'\n`)
      await waitFor(new RegExp(`^${done}$`, 'm'), undefined, from)
      return output.slice(from)
    },
    async interrupt (): Promise<void> {
      signal('SIGINT')
      await closed
    },
  }
}

t.test('the README\'s two-minute tour, run as written', async (t) => {
  const readme = readFileSync(new URL('README.md', root), 'utf8')
  const [server, target, receiver, setUp, watch, startWindow, endWindow, ...more] = sectionBlocks(readme, 'A two-minute tour')
  t.same(more, [], 'seven blocks: the server, the target, the receiver, the channel and the monitor, the API\'s view, a maintenance window made and ended')
  t.match(server, /^ALLOW_PRIVATE_TARGETS=true npm start\b/, 'the server is npm start, allowed to check this machine')
  t.match(readme, /!\[[^\]]+\]\(docs\/images\/dashboard\.png\)/, 'the tour shows the screenshot')
  t.ok(existsSync(new URL('docs/images/dashboard.png', root)), 'the screenshot is there')

  // The tour's ports, free ones here: this machine runs other tests.
  const ports: Record<string, number> = { 3000: await freePort(), 8080: await freePort(), 9000: await freePort() }
  const onFreePorts = (block: string) => block.replace(/\b(3000|8080|9000)\b/g, (port) => String(ports[port]))
  const clone = builtProjectCopy(t)
  // ./data in the clone, made by this first start.
  const pingward = terminal(t, clone, { PORT: String(ports[3000]) }, server)
  const key = (await pingward.waitFor(/^ {2}(sk_\w+)$/m))[1]
  t.match(await pingward.waitFor(/\/setup\?token=\S+/), /setup/, 'the server printed the link to set the dashboard\'s password')
  let targetShell = terminal(t, clone, {}, onFreePorts(target))
  const receiverShell = terminal(t, clone, {}, onFreePorts(receiver))

  const api = terminal(t, clone, {})
  const created = await api.run(onFreePorts(setUp).replace('sk_...', key))
  t.match(created, /"name":"Local receiver"/, 'the webhook channel is created')
  t.match(created, /"name":"Local target"/, 'the monitor is created')
  const status = async () => /"status":"(\w+)"/.exec(await api.run(onFreePorts(watch)))?.[1]
  await until(async () => await status() === 'up', 500)

  await targetShell.interrupt()
  await receiverShell.waitFor(/"type":"incident\.opened"/)
  t.equal(await status(), 'down', 'the API says the monitor is down')

  targetShell = terminal(t, clone, {}, onFreePorts(target))
  await receiverShell.waitFor(/"type":"incident\.resolved"/)
  t.equal(await status(), 'up', 'the API says it is up again')
  t.match(receiverShell.output(), /"name":"Local target"[^\n]*"type":"incident\.opened"/, 'the receiver printed the opening\'s body')

  // The same restart inside a maintenance window: nothing printed.
  const printed = receiverShell.output()
  await api.run(onFreePorts(startWindow))
  t.match(await api.run('echo "window $W"'), /^window [0-9a-f-]{36}$/m, 'the window\'s id, from the answer')
  await targetShell.interrupt()
  await until(async () => await status() === 'down', 500)
  targetShell = terminal(t, clone, {}, onFreePorts(target))
  await until(async () => await status() === 'up', 500)
  t.match(await api.run(onFreePorts(endWindow)), /"state":"completed"/, 'the window ended')
  t.equal(receiverShell.output(), printed, 'the receiver printed nothing for the restart inside the window')
})
