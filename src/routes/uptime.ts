// Uptime history route: a monitor's uptime and response times over a range, by hour or day (api-contract section 10).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { keyOwner } from '../plugins/auth.ts'
import { errorResponses, HttpError } from '../http/error-catalog.ts'
import { MonitorIdParams } from '../schemas/common.ts'
import { UPTIME_HOURLY_BACK_DAYS, UPTIME_MAX_DAYS, UptimeEnvelope, UptimeQuery, type UptimeQueryString, type UptimeReport } from '../schemas/uptime.ts'
import { uptimeEnvelopeJson } from './uptime-json.ts'
import { monitorUptime, type UptimeQuery as Range } from '../repositories/uptime.ts'
import { monitorNotFound } from '../monitors/routes.ts'

const DAY_MS = 86_400_000

/** The query with its defaults (the last 30 days: today and the 29 before), or a 400 naming the field at fault. */
function uptimeRange (query: UptimeQueryString, now: Date): Range {
  const granularity = query.granularity ?? 'day'
  const to = query.to === undefined ? now : new Date(query.to)
  const from = query.from === undefined ? new Date(Math.floor(to.getTime() / DAY_MS) * DAY_MS - 29 * DAY_MS) : new Date(query.from)
  // No monitor is older, and PostgreSQL has no year 0 for a range (or its default start) to reach.
  if (to.getTime() < 0) throw new HttpError(400, 'querystring/to must not be before 1970-01-01T00:00:00Z')
  if (from.getTime() < 0 && query.from !== undefined) throw new HttpError(400, 'querystring/from must not be before 1970-01-01T00:00:00Z')
  if (to <= from) throw new HttpError(400, 'querystring/to must be after from')
  if (to.getTime() - from.getTime() > UPTIME_MAX_DAYS[granularity] * DAY_MS) {
    throw new HttpError(400, `querystring/from must be at most ${UPTIME_MAX_DAYS[granularity]} days before to when granularity is ${granularity}`)
  }
  if (granularity === 'hour' && from.getTime() < now.getTime() - UPTIME_HOURLY_BACK_DAYS * DAY_MS) {
    throw new HttpError(400, `querystring/from must be within the last ${UPTIME_HOURLY_BACK_DAYS} days when granularity is hour (use day)`)
  }
  return { from, to, granularity }
}

const uptimeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/monitors/:id/uptime', {
    schema: {
      tags: ['monitors'],
      summary: 'Uptime and response times of a monitor',
      description: 'The share of time the monitor was up (not in a `down` incident; paused time left out), its downtime, checks and ' +
        'response-time percentiles over a range, in all and per UTC hour or day. Read from rollups kept ' +
        `${UPTIME_MAX_DAYS.day} days (hourly ones ${UPTIME_HOURLY_BACK_DAYS} days) whatever the checks' retention; the current ` +
        'hour and day are computed up to now. Default: the last 30 days (today and the 29 before), by day.',
      operationId: 'getMonitorUptime',
      params: MonitorIdParams,
      querystring: UptimeQuery,
      response: { 200: UptimeEnvelope, ...errorResponses(400, 404) },
    },
    config: { role: 'viewer', keyCheckedByQuery: true },
  }, async (request, reply) => {
    const now = app.clock()
    const series = await monitorUptime(app.db, keyOwner(request), request.params.id, uptimeRange(request.query, now), now)
    if (!series) throw monitorNotFound()
    // Its bytes written from the series, not serialized: the schema above is their contract (test/routes/uptime-json.test.ts).
    return reply.type('application/json; charset=utf-8').send(uptimeEnvelopeJson(series) as unknown as { data: UptimeReport })
  })
}

export default uptimeRoutes
