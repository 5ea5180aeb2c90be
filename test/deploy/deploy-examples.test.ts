// docs/deploy.md shows docs/deploy/ verbatim: the files the deploy tests run are the examples people copy.
import { readFileSync, readdirSync } from 'node:fs'
import t from 'tap'

const root = new URL('../../', import.meta.url)
const deployDoc = readFileSync(new URL('docs/deploy.md', root), 'utf8')
const files = readdirSync(new URL('docs/deploy/', root))

t.same(files.sort(), ['Caddyfile', 'Caddyfile.custom-domains', 'nginx.conf', 'pingward.service'], 'the deploy files')
for (const name of files) {
  const text = readFileSync(new URL(`docs/deploy/${name}`, root), 'utf8')
  t.ok(deployDoc.includes(`\n${text}\`\`\`\n`), `docs/deploy.md shows docs/deploy/${name} whole, in a code block`)
}
