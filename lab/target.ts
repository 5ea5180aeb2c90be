// The lab's target, run in its own namespace: `node --import tsx lab/target.ts ADDRESS PORT`. It answers every request
// 200 after the delay set for the asking address, by lines on stdin (`delay ADDRESS MS`), and says `listening` once up.
import http from 'node:http'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'

const [address, port] = process.argv.slice(2)
const delays = new Map<string, number>()

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, from, ms] = line.trim().split(/\s+/)
  if (command === 'delay' && from && Number.isFinite(Number(ms))) delays.set(from, Number(ms))
  else process.stderr.write(`lab target: not understood: ${line}\n`)
}).on('close', () => process.exit(0))

http.createServer(async (req, res) => {
  await sleep(delays.get(req.socket.remoteAddress ?? '') ?? 0)
  res.writeHead(200, { 'content-type': 'text/plain' }).end('lab target ok\n')
}).listen(Number(port), address, () => process.stdout.write('listening\n'))
