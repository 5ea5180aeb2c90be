// The CLI's side of the admin socket (admin-socket.ts): one JSON line each way; node:net only, so that it loads fast.
import { connect } from 'node:net'
import { join, resolve } from 'node:path'
import type { CliCommand, CommandOutput } from './commands.ts'

/** The socket of the server running on the embedded database in `dataDir`, in a directory only its user may enter. */
export const adminSocketPath = (dataDir: string) => join(resolve(dataDir), '.admin', 'cli.sock')

/** `usage`: the command's options were refused (the CLI shows its usage and exits 2). */
export type AdminReply = ({ ok: true } & CommandOutput) | { ok: false, error: string, usage?: true }

// What connect() says when nobody listens there: no socket file, or one left by a process that has died.
const NOBODY = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTDIR'])

/** Sends the command to the running server; its reply, or undefined when no server listens on the socket. */
export function askServer (dataDir: string, command: CliCommand): Promise<AdminReply | undefined> {
  const path = adminSocketPath(dataDir)
  return new Promise((resolve, reject) => {
    const socket = connect(path)
    let connected = false
    let text = ''
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      connected = true
      socket.write(`${JSON.stringify({ command })}\n`)
    })
    socket.on('data', (chunk: string) => { text += chunk })
    socket.on('end', () => {
      try {
        resolve(JSON.parse(text) as AdminReply)
      } catch {
        reject(new Error(`The server on ${dataDir} stopped before it answered: the command may or may not have run`))
      }
    })
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected && NOBODY.has(err.code ?? '')) return resolve(undefined)
      reject(new Error(`The admin socket of the server on ${dataDir} (${path}) failed: ${err.message}` +
        (err.code === 'EACCES' ? '. Run the command as the user the server runs as.' : '')))
    })
  })
}
