// The one way an entry point runs: its main(), then a known failure as one line, anything else with its stack.
import { DataDirLockedError } from '../db/data-dir-lock.ts'
import { ConfigError } from './config-basics.ts'

// Errors whose message is meant for the operator as it is, without a stack trace.
const isKnown = (err: unknown) => err instanceof DataDirLockedError || err instanceof ConfigError

/** Runs `main`; a failure prints as one redacted line (drizzle's message carries a query's parameters), with the
 * stack only when unexpected. `exitOnSuccess` ends one-shot commands whose handles would keep the process alive. */
export function runMain (name: string, main: () => Promise<void>, options: { exitOnSuccess?: boolean, exitCode?: (err: unknown) => number, message?: (err: unknown) => string | undefined } = {}): void {
  // An exit waits for stdout to take what main() wrote: a pipe takes 64 KiB at a time, and exit drops the rest.
  main().then(() => { if (options.exitOnSuccess) process.stdout.write('', () => process.exit(0)) }, async (err: unknown) => {
    // Loaded on failure only: the redaction brings pino, which every start of the CLI would load for nothing.
    const { redactedError, redactedText } = await import('./log-redaction.ts')
    const text = options.message?.(err) ??
      (isKnown(err) ? (err as Error).message : (err instanceof Error ? redactedError(err).stack ?? err.message : String(err)))
    process.stderr.write(`${name}: ${redactedText(text, err)}\n`)
    process.exit(options.exitCode?.(err) ?? 1)
  })
}
