// The probe's connectors: a finished check's socket is destroyed with one shared error, not with a new one whose
// stack Node formats (undici's "reset" after every `connection: close` exchange, which is every check's).
import { errors, type buildConnector } from 'undici'
import type { Socket } from 'node:net'

type Connector = ReturnType<typeof buildConnector>

/**
 * What undici destroys a socket with once its `reset` request is done: a new InformationalError('reset') each time,
 * whose stack Node's stream destroy() formats at once (it reads `err.stack`). Nobody reads that error: undici
 * ignores its own informational errors. This one is made once, with a stack of one line (where it was made says nothing).
 */
const RESET = new errors.InformationalError('reset')
RESET.stack = `${RESET.name}: ${RESET.message} (a finished check's connection, closed)`

/** Destroys the socket as the prototype's destroy does, with the shared RESET in place of undici's new one. */
function destroyWithSharedReset (this: Socket, error?: Error): Socket {
  const reset = error instanceof errors.InformationalError && error.message === 'reset'
  return (Object.getPrototypeOf(this) as Socket).destroy.call(this, reset ? RESET : error)
}

/**
 * `connector`, whose sockets are destroyed with the shared RESET when undici resets them. Any other error
 * (a refused connection, a timeout, a bad response) reaches the socket and the check as before.
 */
export function quietResets (connector: Connector): Connector {
  return (options, callback) => connector(options, (err, socket) => {
    if (err || !socket) {
      callback(err as Error, null)
      return
    }
    socket.destroy = destroyWithSharedReset
    callback(null, socket)
  })
}
