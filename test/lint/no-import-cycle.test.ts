// The lint rule against import circles (lint/no-import-cycle.js): it finds a circle of any length, through type-only and
// dynamic imports too, names its files, and leaves imports that only point one way alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ESLint } from 'eslint'
import t from 'tap'

async function lintTree (t: { teardown: (fn: () => void) => void }, files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'pingward-lint-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const { default: rule } = await import('../../lint/no-import-cycle.js' as string)
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.js'], plugins: { pingward: { rules: { 'no-import-cycle': rule } } }, rules: { 'pingward/no-import-cycle': 'error' } }],
  })
  const results = await eslint.lintFiles(['.'])
  return Object.fromEntries(results.map((result) => [result.filePath.slice(dir.length + 1), result.messages.map((message) => message.message)]))
}

t.test('a circle of three files is reported at each of them, with its path', async (t) => {
  const found = await lintTree(t, {
    'a.js': "import { b } from './b.js'\nexport const a = b\n",
    'b.js': "export { c as b } from './c.js'\n",
    'c.js': "export const c = 1\nexport const later = () => import('./a.js')\n",
    'd.js': "import { a } from './a.js'\nexport const d = a\n",
  })
  t.match(found['a.js'], [/^Import cycle: a\.js -> b\.js -> c\.js -> a\.js\./])
  t.match(found['b.js'], [/^Import cycle: b\.js -> c\.js -> a\.js -> b\.js\./])
  t.match(found['c.js'], [/^Import cycle: c\.js -> a\.js -> b\.js -> c\.js\./])
  t.same(found['d.js'], [], 'd.js imports the circle but is not on it')
})

t.test('imports that point one way are not reported', async (t) => {
  const found = await lintTree(t, {
    'a.js': "import { b } from './b.js'\nimport { c } from './c.js'\nexport const a = b + c\n",
    'b.js': "import { c } from './c.js'\nexport const b = c\n",
    'c.js': "import { readFileSync } from 'node:fs'\nexport const c = typeof readFileSync\n",
  })
  t.same(found, { 'a.js': [], 'b.js': [], 'c.js': [] })
})
