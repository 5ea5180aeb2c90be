#!/usr/bin/env node
// `pingward`, the package's command (`npm link` in a clone, or the package installed globally): `pingward agent ...` runs a
// probe agent (src/agent.ts), any other command is the operator's CLI (src/cli.ts).
if (process.argv[2] === 'agent') {
  process.argv.splice(2, 1)
  await import('./agent.ts')
} else {
  await import('./cli.ts')
}
