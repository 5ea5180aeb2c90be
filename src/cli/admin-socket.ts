// The server's admin socket on the embedded database, which the CLI cannot open while the server holds it: only the
// server's user can connect, and a socket file found at start is a dead holder's (this process holds the data-dir lock).
import { chmodSync, mkdirSync, rmSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { dirname } from 'node:path'
import type { Database } from '../db/client.ts'
import { DomainError } from '../domain/errors.ts'
import { adminSocketPath, type AdminReply } from './admin-client.ts'
import { UsageError } from './usage-error.ts'
import { CommandError, DATABASE_COMMANDS, runCommand, type CliCommand } from './commands.ts'

interface Log {
  info: (obj: object, msg: string) => void
  warn: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

interface AdminSocket { close: () => Promise<void> }

// A command is one short JSON line; a peer that sends more, or nothing for this long, is cut off.
const REQUEST_MAX_CHARS = 64 * 1024
const IDLE_TIMEOUT_MS = 10_000
// sockaddr_un's sun_path: 108 bytes on Linux, 104 on macOS, with the terminating zero.
const PATH_MAX_BYTES = 103

/** Reads one line from the peer, runs it, answers and closes; errors become answers the CLI prints. */
async function answer (line: string, db: Database, log: Log): Promise<AdminReply> {
  let command: CliCommand | undefined
  try {
    command = (JSON.parse(line) as { command?: CliCommand }).command
  } catch {}
  if (!command || typeof command !== 'object' || !DATABASE_COMMANDS.includes(command.name)) {
    return { ok: false, error: 'The running server does not know this command: is it an older version than the CLI?' }
  }
  log.info({ command: command.name }, 'admin command from the CLI')
  try {
    return { ok: true, ...await runCommand(db, command) }
  } catch (err) {
    // Refusals (no such user, a duplicate) are the operator's to read; anything else is logged here too.
    if (err instanceof UsageError) return { ok: false, error: err.message, usage: true }
    if (!(err instanceof CommandError) && !(err instanceof DomainError)) {
      log.error({ err, command: command.name }, 'admin command failed')
    }
    return { ok: false, error: err instanceof Error ? err.message : String(err) }
  }
}

/** Listens on DATA_DIR's admin socket, or warns and returns undefined; close() lets running commands finish. */
export async function startAdminSocket (options: { dataDir: string, db: Database, log: Log }): Promise<AdminSocket | undefined> {
  const { dataDir, db, log } = options
  const path = adminSocketPath(dataDir)
  if (process.platform === 'win32') return undefined
  if (Buffer.byteLength(path) > PATH_MAX_BYTES) {
    log.warn({ path }, 'no admin socket: its path is too long for a Unix socket; the CLI works only while the server is stopped')
    return undefined
  }
  const idle = new Set<Socket>()
  const running = new Set<Promise<void>>()
  const server = createServer((socket) => {
    idle.add(socket)
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy())
    socket.setEncoding('utf8')
    socket.on('error', () => {}) // a CLI that went away: nothing to tell anyone
    socket.on('close', () => idle.delete(socket))
    let text = ''
    const onData = (chunk: string) => {
      text += chunk
      const end = text.indexOf('\n')
      if (end < 0) {
        if (text.length > REQUEST_MAX_CHARS) socket.destroy()
        return
      }
      socket.off('data', onData)
      idle.delete(socket)
      socket.setTimeout(0)
      const work = answer(text.slice(0, end), db, log)
        .then((reply) => { socket.end(`${JSON.stringify(reply)}\n`) })
        .finally(() => running.delete(work))
      running.add(work)
    }
    socket.on('data', onData)
  })
  try {
    const dir = dirname(path)
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
    rmSync(path, { force: true })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, () => {
        server.off('error', reject)
        resolve()
      })
    })
    chmodSync(path, 0o600)
  } catch (err) {
    server.close()
    log.warn({ err, path }, 'no admin socket: the CLI works only while the server is stopped')
    return undefined
  }
  return {
    async close () {
      for (const socket of idle) socket.destroy()
      const closed = new Promise<void>((resolve) => { server.close(() => resolve()) })
      await Promise.all([...running])
      await closed
      rmSync(path, { force: true })
    },
  }
}
