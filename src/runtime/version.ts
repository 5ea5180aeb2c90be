// Pingward's own version, as package.json says it: from src/runtime/ and from dist/runtime/ alike, two folders up.
import { readFileSync } from 'node:fs'

export const PINGWARD_VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version
