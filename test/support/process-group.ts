// The live processes of a process group, for tests that check what a start left running (Linux's /proc).
import { readdirSync, readFileSync } from 'node:fs'

/** The command lines of the live (not zombie) processes of group `pgid`. */
export function groupCommands (pgid: number): string[] {
  const commands: string[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(pgrp) === pgid && state !== 'Z') commands.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim())
    } catch {
      // gone while we looked
    }
  }
  return commands
}
