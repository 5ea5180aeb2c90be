// Takes the README's screenshot, docs/images/dashboard.png: a server on a fresh DATA_DIR with three monitors of
// local targets (two up, the tour's "Local target" down), signed in through the first start's setup link, the
// monitor list in headless Chromium. Run on demand: `npx tsx bench/dashboard-screenshot.ts` (needs /usr/bin/chromium).
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { freePort } from '../test/support/target-server.ts'
import { ROOT, startProcess } from './processes.ts'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const OUT = join(ROOT, 'docs/images/dashboard.png')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const MONITORS = [
  { name: 'Homepage', path: '/', status: 200 },
  { name: 'API health', path: '/healthz', status: 200 },
  { name: 'Local target', path: '/', status: 503 },
]

async function main (): Promise<void> {
  // One port per monitor: the down one's answers 503, as a stopped service behind a proxy would.
  const targets = await Promise.all(MONITORS.map(async ({ status }) => {
    const server = http.createServer((_req, res) => { res.statusCode = status; res.end(status === 200 ? 'ok' : 'unavailable') })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return server
  }))
  const dataDir = mkdtempSync(join(tmpdir(), 'pingward-screenshot-'))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  let output = ''
  // From the sources (tsx), so that no build is needed; the page is the same.
  const server = startProcess(process.execPath, ['--import=tsx', 'src/server.ts'], {
    ...process.env, DATABASE_URL: undefined, NODE_OPTIONS: undefined, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn',
  }, { onLine: (line) => { output += line + '\n' } })
  try {
    let key: string | undefined
    let setupUrl: string | undefined
    while (!key || !setupUrl) {
      if (server.process.exitCode !== null) throw new Error(`the server exited:\n${output}`)
      key = /\b(sk_[A-Za-z0-9]+)\b/.exec(output)?.[1]
      setupUrl = /(http:\/\/\S+\/setup\?token=\S+)/.exec(output)?.[1]
      await sleep(100)
    }
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
    for (const [i, { name, path }] of MONITORS.entries()) {
      const url = `http://127.0.0.1:${(targets[i].address() as AddressInfo).port}${path}`
      const res = await fetch(`${base}/api/v1/monitors`, {
        method: 'POST', headers: auth, body: JSON.stringify({ name, url, interval_minutes: 1, failure_threshold: 1 }),
      })
      if (res.status !== 201) throw new Error(`POST /monitors: ${res.status} ${await res.text()}`)
    }
    // Each monitor's first check: the list shows their statuses, not pending.
    for (;;) {
      const { data } = await (await fetch(`${base}/api/v1/monitors`, { headers: auth })).json() as { data: Array<{ status: string }> }
      if (data.every((m) => m.status !== 'pending')) break
      await sleep(200)
    }

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    })
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } })
      await page.goto(setupUrl)
      await page.getByLabel('New password').fill('a long enough screenshot password')
      await page.getByLabel('Repeat the password').fill('a long enough screenshot password')
      await page.getByRole('button', { name: 'Set password and sign in' }).click()
      await page.waitForURL(`${base}/?notice=password-set`)
      await page.goto(`${base}/`)
      await page.screenshot({ path: OUT, fullPage: true })
    } finally {
      await browser.close()
    }
    process.stdout.write(`${OUT}: ${Math.round(statSync(OUT).size / 1024)} KiB\n`)
  } finally {
    await server.stop()
    for (const target of targets) target.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
