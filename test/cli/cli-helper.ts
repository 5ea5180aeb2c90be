// What the CLI's tests share: a command line parsed as the CLI parses it, and the error it is refused with.
import { parseCommand } from '../../src/cli/args.ts'
import type { CliCommand } from '../../src/cli/commands.ts'

/** The database command a command line (words split on spaces) stands for. */
export function command (line: string): CliCommand {
  const parsed = parseCommand(line.split(' '))
  if (parsed.kind !== 'run') throw new Error(`${line}: not a database command`)
  return parsed.command
}

/** What parsing the command line throws; undefined when it parses. */
export function parseError (line: string): unknown {
  try {
    parseCommand(line.split(' '))
  } catch (err) {
    return err
  }
  return undefined
}
