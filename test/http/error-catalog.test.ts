// An input error's API wording: the domain names the field, the edge says where the input was.
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { InvalidInputError } from '../../src/domain/errors.ts'
import { inputErrorMessage } from '../../src/http/error-catalog.ts'
import { assertTargetAllowed } from '../../src/net/target-url.ts'

const request = { params: { id: 'x' }, query: { cursor: 'y' } } as unknown as FastifyRequest

t.test('a field of the path, the query or the body gets its part in front', async (t) => {
  t.equal(inputErrorMessage(new InvalidInputError('id', 'id must be a webhook channel'), request), 'params/id must be a webhook channel')
  t.equal(inputErrorMessage(new InvalidInputError('cursor', 'cursor must be a cursor'), request), 'querystring/cursor must be a cursor')
  t.equal(inputErrorMessage(new InvalidInputError('config/token', 'config/token must be given again'), request), 'body/config/token must be given again')
  t.equal(inputErrorMessage(new InvalidInputError('type', 'type: no mail server')), 'body/type: no mail server', 'outside a request: the body')
})

t.test('a target URL refused by the policy reads as the validator would', async (t) => {
  const messageOf = (run: () => void) => {
    try {
      run()
    } catch (err) {
      if (err instanceof InvalidInputError) return inputErrorMessage(err, request)
    }
  }
  t.equal(messageOf(() => assertTargetAllowed('https://u:p@example.com', false)), 'body/url must not contain credentials')
  t.match(messageOf(() => assertTargetAllowed('nope', false, 'config/url')), /^body\/config\/url must be an absolute/)
})
