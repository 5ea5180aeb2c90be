// The dashboard's static files (CSS, a little JS, the icon), read once at start and served under a versioned path.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'

export interface Asset {
  body: Buffer
  type: string
  version: string
}

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
}

function load (name: string): Asset {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url))
  return { body, type: TYPES[name.split('.').pop()!], version: createHash('sha256').update(body).digest('hex').slice(0, 12) }
}

export const ASSETS: ReadonlyMap<string, Asset> = new Map(['dashboard.css', 'dashboard.js', 'favicon.svg', 'favicon.ico'].map((name) => [name, load(name)]))

/** The URL of an asset; the version changes with the content, so browsers may cache it for good. */
export function assetPath (name: string): string {
  return `/assets/${name}?v=${ASSETS.get(name)!.version}`
}
