// The reminders due: for each open, unacknowledged incident, each active channel with `reminder_minutes` that was
// told of its opening, once that many minutes have passed since the opening's delivery or the last reminder.
import { sql } from 'drizzle-orm'
import { rowsOf, type Database } from '../db/client.ts'

export interface DueReminder { incidentId: string, channelId: string, orgId: string }

// The events that tell an incident's opening (a degraded one's `monitor.degraded` while it is open).
const OPENINGS = sql.raw("'incident.opened', 'heartbeat.missed', 'monitor.degraded'")

/** The reminders due at `now`, their incidents locked (SKIP LOCKED: another process's sweep takes the others). */
export async function lockDueReminders (tx: Database, now: Date): Promise<DueReminder[]> {
  const at = now.toISOString()
  return rowsOf<DueReminder>(await tx.execute(sql`
    select i.id as "incidentId", c.id as "channelId", c.org_id as "orgId"
    from incidents i
    join monitors m on m.id = i.monitor_id and m.deleted_at is null
    join notification_events opening on opening.incident_id = i.id and opening.type in (${OPENINGS})
    join notification_deliveries told on told.event_id = opening.id
    join notification_channels c on c.id = told.channel_id and c.is_active and c.reminder_minutes is not null
    where i.status = 'open' and i.acknowledged_at is null
      and coalesce((
        select max(d.created_at) from notification_events e join notification_deliveries d on d.event_id = e.id
        where e.incident_id = i.id and e.type = 'incident.reminder' and d.channel_id = c.id
      ), told.created_at) <= ${at}::timestamptz - make_interval(mins => c.reminder_minutes)
    order by i.started_at
    for update of i skip locked`))
}
