// The probe's connectors: a finished check's socket is destroyed with one shared error, not with a new one whose
// stack Node formats (undici's "reset" after every `connection: close` exchange, which is every check's).
import { errors, type buildConnector } from 'undici'
import type { Socket } from 'node:net'

type Connector = ReturnType<typeof buildConnector>

// undici destroys each `reset` socket with a new InformationalError whose stack Node formats at once, though nobody
// reads it; this one is made once, with a one-line stack.
const RESET = new errors.InformationalError('reset')
RESET.stack = `${RESET.name}: ${RESET.message} (a finished check's connection, closed)`

/** Destroys the socket as the prototype's destroy does, with the shared RESET in place of undici's new one. */
function destroyWithSharedReset (this: Socket, error?: Error): Socket {
  const reset = error instanceof errors.InformationalError && error.message === 'reset'
  return (Object.getPrototypeOf(this) as Socket).destroy.call(this, reset ? RESET : error)
}

/** `connector`, whose sockets undici resets are destroyed with the shared RESET; any other error passes as it is. */
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
