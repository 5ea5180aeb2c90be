// A real DNS server (dns2, UDP on 127.0.0.1, a free port) answering from a fixed zone, for dns checks; closed with its test.
import dns2 from 'dns2'
import type { Teardown } from '../helper.ts'

const { Packet } = dns2

/** A name's records by type; `nxdomain` answers NXDOMAIN, `silent` never answers, `servfail` SERVFAIL. */
export interface ZoneEntry {
  A?: string[]
  AAAA?: string[]
  CNAME?: string
  MX?: Array<{ priority: number, exchange: string }>
  TXT?: string[][] // each record's strings
  NS?: string[]
  nxdomain?: true
  silent?: true
  servfail?: true
  /** Of every record of the name, in seconds (default 60). */
  ttl?: number
}

/**
 * Serves `zone` (names in lower case, without a trailing dot); a name not in it is NXDOMAIN, a type it lacks
 * an empty NOERROR answer. `server` is `127.0.0.1:port`, as DNS_SERVERS names a resolver; `questions` lists
 * what was asked, `TYPE name`.
 */
export async function dnsServer (t: Teardown, zone: Record<string, ZoneEntry>) {
  const questions: string[] = []
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request)
      const [question] = request.questions
      const name = question.name.toLowerCase().replace(/\.$/, '')
      const type = Packet.TYPE_NAME[question.type] as string
      questions.push(`${type} ${name}`)
      const entry = zone[name]
      if (entry?.silent) return
      if (entry === undefined || entry.nxdomain) response.header.rcode = Packet.RCODE.NXDOMAIN
      else if (entry.servfail) response.header.rcode = Packet.RCODE.SERVFAIL
      else response.answers.push(...records(question.name, type, entry))
      send(response).catch(() => {})
    },
  })
  const { udp } = await server.listen({ udp: { port: 0, address: '127.0.0.1' } })
  t.teardown(() => server.close())
  return { server: `127.0.0.1:${udp!.port}`, questions }
}

function records (name: string, type: string, entry: ZoneEntry): dns2.Packet.Resource[] {
  // Plain objects, as dns2's own examples answer: its encoder reads the fields, its type wants a class instance.
  const record = (recordType: number, fields: object) =>
    ({ name, type: recordType, class: Packet.CLASS.IN, ttl: entry.ttl ?? 60, ...fields }) as unknown as dns2.Packet.Resource
  switch (type) {
    case 'A': return (entry.A ?? []).map((address) => record(Packet.TYPE.A, { address }))
    case 'AAAA': return (entry.AAAA ?? []).map((address) => record(Packet.TYPE.AAAA, { address }))
    case 'CNAME': return entry.CNAME === undefined ? [] : [record(Packet.TYPE.CNAME, { domain: entry.CNAME })]
    case 'MX': return (entry.MX ?? []).map((mx) => record(Packet.TYPE.MX, mx))
    case 'TXT': return (entry.TXT ?? []).map((data) => record(Packet.TYPE.TXT, { data }))
    case 'NS': return (entry.NS ?? []).map((ns) => record(Packet.TYPE.NS, { ns }))
    default: return []
  }
}
