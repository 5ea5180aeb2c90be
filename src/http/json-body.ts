// Fastify's JSON body parser, with a message naming a refused prototype-poisoning key (Fastify calls it
// "Body is not valid JSON"), and an empty body as no body on a route that takes none.
import type { FastifyInstance } from 'fastify'
import { HttpError } from './error-catalog.ts'

/** The key secure-json-parse refused in text that is valid JSON, or undefined (then the text is not JSON). */
function refusedKey (text: string): string | undefined {
  let found: string | undefined
  try {
    JSON.parse(text, function (key, value: unknown) {
      if (key === '__proto__') found ??= '__proto__'
      else if (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value) found ??= 'constructor.prototype'
      return value
    })
  } catch {
    return undefined
  }
  return found
}

export function useJsonBodyParser (app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Client libraries send a JSON Content-Type even with no body: nothing to parse, not a 400.
    if (body === '' && request.routeOptions.schema?.body === undefined) return done(null, undefined)
    parse(request, body as string, (error, value) => {
      // Only on the way out with an error: a valid body costs nothing more.
      const key = (error as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? refusedKey(body as string) : undefined
      if (key) return done(new HttpError(400, `Body has a "${key}" key, which is refused`), undefined)
      done(error, value)
    })
  })
}
