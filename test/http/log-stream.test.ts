// The batched log stream: lines wait for a full batch or the timer, and none is lost.
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { batchedLogStream, LOG_BATCH_BYTES } from '../../src/http/log-stream.ts'
import { tempDir, type Teardown } from '../helper.ts'

const read = (file: string) => { try { return readFileSync(file, 'utf8') } catch { return '' } }

/**
 * A batched log stream into a fresh file, ended at teardown. `writes`: the sizes of its writes so far, in
 * order (sonic-boom emits 'write' once each write(2) is done); `written(n)` resolves once n bytes are written.
 */
function logFile (t: Teardown, flushMs: number) {
  const file = join(tempDir(t, 'pingward-log-'), 'out.log')
  const logs = batchedLogStream({ dest: file, flushMs })
  t.teardown(() => { logs.stream.end() })
  const writes: number[] = []
  const waiting = new Set<{ n: number, resolve: () => void }>()
  const total = () => writes.reduce((sum, size) => sum + size, 0)
  logs.stream.on('write', (size: number) => {
    writes.push(size)
    for (const w of waiting) if (total() >= w.n) { waiting.delete(w); w.resolve() }
  })
  const written = (n: number) => new Promise<void>((resolve) => {
    if (total() >= n) return resolve()
    // The flush timer is unref'd (it must not keep a server alive): this keeps the test alive until the write.
    const hold = setInterval(() => {}, 60_000)
    waiting.add({ n, resolve: () => { clearInterval(hold); resolve() } })
  })
  return { file, logs, writes, written }
}

const line = (i: number) => `{"n":${i},"msg":"${'x'.repeat(90)}"}\n`

t.test('a quiet stream is written by the timer', async (t) => {
  const { file, logs, written } = logFile(t, 50)
  logs.stream.write(line(1))
  await written(line(1).length)
  t.equal(read(file), line(1), 'written without a full batch')
})

t.test('without the timer, lines wait for a full batch, then all are written in order', async (t) => {
  const { file, logs, writes, written } = logFile(t, 3_600_000)
  logs.stream.write(line(0))
  // Once the file is open, a stream that wrote single lines would start writing this one.
  await once(logs.stream, 'ready')
  t.equal(read(file), '', 'one line is held back')
  const count = Math.ceil(LOG_BATCH_BYTES / line(0).length) + 5
  for (let i = 1; i < count; i++) logs.stream.write(line(i))
  await written(LOG_BATCH_BYTES)
  t.ok(writes[0] >= LOG_BATCH_BYTES, `the first write is a full batch (${writes[0]} bytes): the line was held back until then`)
  const batch = read(file)
  t.ok(batch.length >= LOG_BATCH_BYTES && batch.length < count * line(0).length, 'a full batch is written, the rest waits')
  await new Promise<void>((resolve) => { logs.flush(resolve) })
  const all = read(file)
  t.equal(all, Array.from({ length: count }, (_, i) => line(i)).join(''), 'flush writes the rest; nothing lost or reordered')
})

t.test('a flush during a write also writes what came after it', async (t) => {
  const { file, logs } = logFile(t, 3_600_000)
  const count = Math.ceil(LOG_BATCH_BYTES / line(0).length) + 5
  await once(logs.stream, 'ready')
  // The line that fills the batch starts a write; the last five wait behind it while flush() is called.
  for (let i = 0; i < count; i++) logs.stream.write(line(i))
  await new Promise<void>((resolve) => { logs.flush(resolve) })
  t.equal(read(file), Array.from({ length: count }, (_, i) => line(i)).join(''), 'every line, in order')
})
