// Debian's Chromium, headless through playwright-core, launched the same way by every browser test.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { tempDir } from '../helper.ts'

const CHROMIUM = '/usr/bin/chromium'
const SCREENSHOTS = fileURLToPath(new URL('../../test-output/screenshots/', import.meta.url))
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--no-proxy-server',
  '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** A test's `skip` without Chromium (false with it). */
export const chromiumMissing: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does)`

/** A browser with a profile of its own (so its own cookies), closed when the test ends; `args` adds flags. */
export async function launchChromium (
  t: Test, options: { args?: string[], ignoreHTTPSErrors?: boolean } = {}
): Promise<{ browser: BrowserContext, page: Page }> {
  const browser = await chromium.launchPersistentContext(tempDir(t, 'pingward-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [...ARGS, ...options.args ?? []],
    viewport: { width: 1280, height: 900 },
    ignoreHTTPSErrors: options.ignoreHTTPSErrors,
  })
  t.teardown(() => browser.close())
  return { browser, page: browser.pages()[0] ?? await browser.newPage() }
}

/** The path of a screenshot named `name` in test-output/screenshots/ (git-ignored). */
export function screenshotPath (name: string): string {
  mkdirSync(SCREENSHOTS, { recursive: true })
  return join(SCREENSHOTS, `${name}.png`)
}
