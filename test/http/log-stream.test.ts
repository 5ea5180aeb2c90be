// The batched log stream: lines wait for a full batch or the timer, and none is lost.
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { batchedLogStream, LOG_BATCH_BYTES } from '../../src/http/log-stream.ts'

function tempFile (t: { teardown: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'pingward-log-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return join(dir, 'out.log')
}

const read = (file: string) => { try { return readFileSync(file, 'utf8') } catch { return '' } }

/** Polls until `file` holds `length` characters (a write is asynchronous), or fails after 10 s. */
async function untilLength (file: string, length: number): Promise<string> {
  const deadline = Date.now() + 10_000
  while (read(file).length < length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  return read(file)
}

const line = (i: number) => `{"n":${i},"msg":"${'x'.repeat(90)}"}\n`

t.test('a quiet stream is written by the timer', async (t) => {
  const file = tempFile(t)
  const logs = batchedLogStream({ dest: file, flushMs: 50 })
  t.teardown(() => { logs.stream.end() })
  logs.stream.write(line(1))
  t.equal(await untilLength(file, line(1).length), line(1), 'written without a full batch')
})

t.test('without the timer, lines wait for a full batch, then all are written in order', async (t) => {
  const file = tempFile(t)
  const logs = batchedLogStream({ dest: file, flushMs: 3_600_000 })
  t.teardown(() => { logs.stream.end() })
  logs.stream.write(line(0))
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(read(file), '', 'one line is held back')
  const count = Math.ceil(LOG_BATCH_BYTES / line(0).length) + 5
  for (let i = 1; i < count; i++) logs.stream.write(line(i))
  const written = await untilLength(file, LOG_BATCH_BYTES)
  t.ok(written.length >= LOG_BATCH_BYTES && written.length < count * line(0).length, 'a full batch is written, the rest waits')
  await new Promise<void>((resolve) => { logs.flush(resolve) })
  const all = read(file)
  t.equal(all, Array.from({ length: count }, (_, i) => line(i)).join(''), 'flush writes the rest; nothing lost or reordered')
})

t.test('a flush during a write also writes what came after it', async (t) => {
  const file = tempFile(t)
  const logs = batchedLogStream({ dest: file, flushMs: 3_600_000 })
  t.teardown(() => { logs.stream.end() })
  const count = Math.ceil(LOG_BATCH_BYTES / line(0).length) + 5
  await once(logs.stream, 'ready')
  // The line that fills the batch starts a write; the last five wait behind it while flush() is called.
  for (let i = 0; i < count; i++) logs.stream.write(line(i))
  await new Promise<void>((resolve) => { logs.flush(resolve) })
  t.equal(read(file), Array.from({ length: count }, (_, i) => line(i)).join(''), 'every line, in order')
})
