// The README's Deploy section shows docs/deploy/ verbatim: the files the deploy tests run are the examples people copy.
import { readFileSync, readdirSync } from 'node:fs'
import t from 'tap'

const root = new URL('../../', import.meta.url)
const readme = readFileSync(new URL('README.md', root), 'utf8')
const files = readdirSync(new URL('docs/deploy/', root))

t.same(files.sort(), ['Caddyfile', 'nginx.conf', 'pingward.service'], 'the deploy files')
for (const name of files) {
  const text = readFileSync(new URL(`docs/deploy/${name}`, root), 'utf8')
  t.ok(readme.includes(`\n${text}\`\`\`\n`), `README shows docs/deploy/${name} whole, in a code block`)
}
