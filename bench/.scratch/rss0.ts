const mb = (n: number) => Math.round(n / 1048576)
const show = (label: string) => { const m = process.memoryUsage(); console.log(label, JSON.stringify({ rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed) })) }
show('start')
await import('postgres'); show('postgres')
await import('drizzle-orm/postgres-js'); show('drizzle pg')
//
//
await import('undici'); show('undici')
await import('pino'); show('pino')
await import('../../src/checker/index.ts'); show('checker')
await import('../../src/db/client.ts'); show('client')
