// A real webhook receiver for tests and bench/: verifies each request with the `standardwebhooks` package
// (an implementation we did not write) and answers as the test says: 2xx, 500, 429 + Retry-After, 410, or never.
import type { IncomingHttpHeaders } from 'node:http'
import { Webhook } from 'standardwebhooks'
import type { Teardown } from '../helper.ts'
import { targetServer } from './target-server.ts'

export interface Received {
  id: string
  timestamp: string
  signature: string
  headers: IncomingHttpHeaders
  body: string
  /** The secrets of `verifyWith` that the request verifies with (standardwebhooks' Webhook.verify). */
  verifiedWith: string[]
  /** The parsed body when it verified with at least one. */
  payload: any
}

/** What to answer: a status (with headers), or 'hang' (never answer; the sender's timeout must end it). */
export type Answer = { status: number, headers?: Record<string, string>, body?: string } | 'hang'

export async function webhookReceiver (
  t: Teardown, options: { verifyWith: () => string[], answer?: (received: Received, index: number) => Answer }
) {
  const received: Received[] = []
  const waiters = new Set<() => void>()
  let answer: (received: Received, index: number) => Answer = options.answer ?? (() => ({ status: 204 }))
  const { url, server } = await targetServer(t, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const verifiedWith: string[] = []
      let payload: unknown
      for (const secret of options.verifyWith()) {
        try {
          payload = new Webhook(secret).verify(body, req.headers as Record<string, string>)
          verifiedWith.push(secret)
        } catch {}
      }
      const entry: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        headers: req.headers,
        body,
        verifiedWith,
        payload,
      }
      received.push(entry)
      const reply = answer(entry, received.length - 1)
      for (const wake of waiters) wake()
      if (reply === 'hang') return
      res.writeHead(reply.status, reply.headers).end(reply.body ?? '')
    })
  })
  return {
    url,
    server,
    received,
    setAnswer (next: (received: Received, index: number) => Answer) { answer = next },
    /** Resolves when `count` requests have arrived (the test's timeout is the only bound). */
    waitFor (count: number): Promise<Received[]> {
      return new Promise((resolve) => {
        const check = () => {
          if (received.length < count) return
          waiters.delete(check)
          resolve(received)
        }
        waiters.add(check)
        check()
      })
    },
  }
}

/** A received event body as the outbox wrote it: without the dashboard's and the acknowledge links, which are added as it is sent. */
export function asWritten (payload: any) {
  const { dashboard_url: link, acknowledge_url: _acknowledge, ...data } = payload.data
  return link === undefined ? payload : { ...payload, data }
}
