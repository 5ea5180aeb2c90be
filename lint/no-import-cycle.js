// ESLint rule: no relative import (static, dynamic or type-only) may lead back to the file that makes it,
// because the files of a circle can only be read, tested and moved together.
import { readFileSync, statSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import ts from 'typescript'

/** The files each file imports by relative path, kept while the file is unchanged (an editor lints again and again). */
const imports = new Map()

function relativeImports (file) {
  let modified
  try {
    modified = statSync(file).mtimeMs
  } catch {
    return [] // not a file of ours: no arrows out of it
  }
  const kept = imports.get(file)
  if (kept?.modified === modified) return kept.files
  const names = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map(({ fileName }) => fileName)
  const files = names.filter((name) => name.startsWith('.')).map((name) => resolve(dirname(file), name))
  imports.set(file, { modified, files })
  return files
}

/** The files from `start` back to `goal` (both included), or undefined when no path of imports leads there. */
function pathBack (start, goal, seen = new Set()) {
  if (start === goal) return [goal]
  seen.add(start)
  for (const next of relativeImports(start)) {
    if (seen.has(next)) continue
    const rest = pathBack(next, goal, seen)
    if (rest) return [start, ...rest]
  }
  return undefined
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid relative imports that lead back to the importing file' },
    schema: [],
    messages: { cycle: 'Import cycle: {{path}}. Move what both need to a file that neither imports back.' },
  },
  create (context) {
    const file = context.filename
    const check = (node) => {
      const name = node.source?.value
      if (typeof name !== 'string' || !name.startsWith('.')) return
      const back = pathBack(resolve(dirname(file), name), file)
      if (back) context.report({ node, messageId: 'cycle', data: { path: [file, ...back].map((f) => relative(context.cwd, f)).join(' -> ') } })
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check }
  },
}
