// Reading a new password for the CLI: from a terminal without echo (asked twice), or the first line of stdin.
import { PASSWORD_MAX_LENGTH } from '../auth/passwords.ts'

// What arrived after the Enter that ended one answer (typed ahead, or pasted): the start of the next.
let typedAhead = ''

/** Reads one line from the terminal in raw mode, echoing nothing; Ctrl-C or Ctrl-D on an empty line cancel. */
function promptHidden (prompt: string): Promise<string> {
  const stdin = process.stdin
  process.stderr.write(prompt)
  return new Promise((resolve, reject) => {
    let value = ''
    const finish = (err?: Error) => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
      if (err) reject(err)
      else resolve(value)
    }
    const onData = (chunk: string) => {
      const chars = [...chunk]
      for (let i = 0; i < chars.length; i++) {
        const ch = chars[i]
        if (ch === '\r' || ch === '\n') {
          typedAhead = chars.slice(i + (ch === '\r' && chars[i + 1] === '\n' ? 2 : 1)).join('')
          return finish()
        }
        if (ch === '\u0003' || (ch === '\u0004' && value === '')) return finish(new Error('cancelled'))
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1)
        else if (ch >= ' ') value += ch
      }
    }
    stdin.setRawMode(true)
    stdin.setEncoding('utf8')
    stdin.on('data', onData)
    stdin.resume()
    if (typedAhead) {
      const ahead = typedAhead
      typedAhead = ''
      onData(ahead)
    }
  })
}

async function firstLineOfStdin (): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) {
    text += String(chunk)
    // Enough for any password: stop reading a huge or endless input.
    if (text.includes('\n') || text.length > PASSWORD_MAX_LENGTH * 4) break
  }
  return text.split(/\r?\n/)[0]
}

export async function readNewPassword (prompt: string): Promise<string> {
  if (!process.stdin.isTTY) return firstLineOfStdin()
  const first = await promptHidden(prompt)
  const again = await promptHidden('Repeat it: ')
  if (first !== again) throw new Error('the two passwords differ')
  return first
}
