// The dns checks' resolver in the mixed checker benchmark: a dns2 server on 127.0.0.1 (UDP) that answers every
// A question with 192.0.2.1 and counts the questions. Env: PORT. Prints "listening" once it does.
import dns2 from 'dns2'

const { Packet } = dns2
let questions = 0
const server = dns2.createServer({
  udp: true,
  handle: (request, send) => {
    questions++
    const response = Packet.createResponseFromRequest(request)
    const [question] = request.questions
    // A plain object, as dns2's own examples answer: its encoder reads the fields.
    response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl: 60, address: '192.0.2.1' } as unknown as dns2.Packet.Resource)
    send(response).catch(() => {})
  },
})
process.once('SIGTERM', () => {
  console.log(JSON.stringify({ questions }))
  server.close().then(() => process.exit(0), () => process.exit(1))
})
await server.listen({ udp: { port: Number(process.env.PORT), address: '127.0.0.1' } })
console.log('listening')
