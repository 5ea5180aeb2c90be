// The one way a paged list says that more items follow: `Link: <url of the next page>; rel="next"` (RFC 8288),
// and its declaration among a route's response headers.
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'

/**
 * Sets the Link to the next page: `path` (from the server's root) with `query`, in its order, the parameters
 * that are undefined left out. The next page's query is the request's own (filters, limit) with its place.
 */
export function setNextPageLink (reply: FastifyReply, path: string, query: Record<string, string | number | boolean | undefined>): void {
  const next = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) next.append(name, String(value))
  reply.header('link', `<${path}?${next}>; rel="next"`)
}

/**
 * The `link` response header of a list that pages, for a route's 200 response. `when` says when it is sent:
 * when more follow (a list that looks one item ahead), or when the page is full (one that does not).
 */
export const nextPageLinkHeader = (what: string, example: string, when: 'more follow' | 'page full' = 'more follow') => ({
  link: Type.String({
    description: `${when === 'more follow' ? `When more ${what} follow` : `When the page is full (more ${what} may follow)`}: ` +
      '`<url of the next page>; rel="next"` (a path from the server\'s root, with this request\'s parameters)',
    examples: [`<${example}>; rel="next"`],
  }),
})
