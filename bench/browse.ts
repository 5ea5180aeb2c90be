// What a newcomer's browser fetches from a fresh server: the dashboard (the setup link, the monitor list, a monitor's
// page, their assets) and Swagger UI (/docs, its assets, the document), with a browser's Accept-Encoding and cookies.
const BROWSER_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
}

/** A cookie jar and the requests of one browser tab against `base`. */
export class Browser {
  private readonly cookies = new Map<string, string>()
  private readonly base: string
  constructor (base: string) { this.base = base }

  private keep (res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair.indexOf('=')
      const name = pair.slice(0, at).trim()
      const value = pair.slice(at + 1)
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }

  private headers (): Record<string, string> {
    return { ...BROWSER_HEADERS, cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') }
  }

  /** GETs `path` (relative to the page `from`), reads the whole body (decompressed) and returns it; anything but 200 throws. */
  async get (path: string, from = '/'): Promise<string> {
    const url = new URL(path, new URL(from, this.base))
    const res = await fetch(url, { headers: this.headers(), redirect: 'manual' })
    this.keep(res)
    const body = await res.text()
    if (res.status !== 200) throw new Error(`GET ${url.pathname}: ${res.status} ${body.slice(0, 200)}`)
    return body
  }

  /** POSTs a form from the page `from` (its Origin), as a browser submits it: 303 expected, its Location returned. */
  async submit (path: string, fields: Record<string, string>, from: string): Promise<string> {
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded', origin: new URL(this.base).origin, referer: new URL(from, this.base).href },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    })
    this.keep(res)
    const body = await res.text()
    if (res.status !== 303) throw new Error(`POST ${path}: ${res.status} ${body.slice(0, 200)}`)
    return res.headers.get('location') ?? '/'
  }

  /** Fetches what a page's HTML links to: stylesheets, scripts, icons. */
  async subresources (html: string, from: string): Promise<void> {
    for (const [, url] of html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)) await this.get(url.replaceAll('&amp;', '&'), from)
  }
}

const hiddenField = (html: string, name: string): string => {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]
  if (value === undefined) throw new Error(`no ${name} field in the page`)
  return value
}

/** Follows the first start's setup link: sets the password, which signs the browser in. */
export async function signInWithSetupLink (browser: Browser, setupUrl: string, password: string): Promise<void> {
  const path = new URL(setupUrl).pathname + new URL(setupUrl).search
  const form = await browser.get(path)
  await browser.submit('/setup', { _csrf: hiddenField(form, '_csrf'), token: hiddenField(form, 'token'), password, confirm: password }, path)
}

/** One look around: the monitor list, the first monitor's page, Swagger UI with its assets and the document. */
export async function browseOnce (browser: Browser): Promise<void> {
  const list = await browser.get('/')
  await browser.subresources(list, '/')
  const monitor = /href="(\/monitors\/[0-9a-f-]{36})"/.exec(list)?.[1]
  if (!monitor) throw new Error('the monitor list links to no monitor')
  await browser.subresources(await browser.get(monitor), monitor)
  const docs = await browser.get('/docs/')
  await browser.subresources(docs, '/docs/')
  JSON.parse(await browser.get('/docs/json'))
}
