// The one way a paged list says that more items follow: `Link: <next page>; rel="next"` (RFC 8288).
import { Type } from '@sinclair/typebox'
import type { FastifyReply } from 'fastify'

/** Sets the Link to the next page: `path` from the server's root with the defined parameters of `query`. */
export function setNextPageLink (reply: FastifyReply, path: string, query: Record<string, string | number | boolean | undefined>): void {
  const next = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) next.append(name, String(value))
  reply.header('link', `<${path}?${next}>; rel="next"`)
}

/** The `link` header of a paged 200; `when`: more follow (a list that looks ahead) or the page is full. */
export const nextPageLinkHeader = (what: string, example: string, when: 'more follow' | 'page full' = 'more follow') => ({
  link: Type.String({
    description: `${when === 'more follow' ? `When more ${what} follow` : `When the page is full (more ${what} may follow)`}: ` +
      '`<url of the next page>; rel="next"` (a path from the server\'s root, with this request\'s parameters)',
    examples: [`<${example}>; rel="next"`],
  }),
})
