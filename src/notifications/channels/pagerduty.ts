// PagerDuty Events API v2: an alert keyed by incident id, so the resolve closes it, or by certificate and expiry.
import { certificateOf, coverageOf, humanText, incidentOf, incidentKind, maintenanceOf, maintenancePageUrl, monitorUrl, truncate, utcTime } from '../message.ts'
import { configText, jsonPost } from './fields.ts'
import type { Monitor } from '../../monitors/schema.ts'
import type { ChannelAdapter, SendContext } from './types.ts'

// PagerDuty's limits: a summary of 1,024 characters, a dedup_key of 255.
const SUMMARY_MAX = 1024

export const pagerdutyAdapter: ChannelAdapter = {
  forPeople: false,
  render: (channel, message, context) => {
    // The sender gives flaps and digests only to adapters for people; a resolve that matched no trigger would be lost.
    if (message.kind !== 'event') throw new Error(`the pagerduty adapter sends events one by one, not a ${message.kind}`)
    const routingKey = configText(channel, 'routing_key')
    const { told } = message
    const parts = incidentOf(told)
    const url = context.serviceUrls.pagerduty
    const expiring = certificateOf(told)
    if (expiring) {
      const { monitor, certificate } = expiring
      const text = humanText(channel, message, context)
      return monitorTrigger(url, routingKey, monitor, context, {
        // Per certificate (a renewed one has another expiry), not per reminder: there is no incident to key on.
        dedupKey: `pingward-tls-${monitor.id}-${certificate.expiresAt}`,
        summary: `${text.title} (on ${utcTime(certificate.expiresAt)})`,
        severity: 'warning',
        timestamp: told.event.timestamp,
        class: 'tls certificate',
        details: { monitor: monitor.name, url: monitor.url, expires_at: certificate.expiresAt, issuer: certificate.issuer, monitor_id: monitor.id },
      })
    }
    const coverage = coverageOf(told)
    if (coverage) {
      // A warning while the monitor's locations are silent, resolved when they report again.
      const dedupKey = `pingward-coverage-${coverage.monitor.id}`
      if (!coverage.lost) return jsonPost(url, { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey })
      return monitorTrigger(url, routingKey, coverage.monitor, context, {
        dedupKey,
        summary: humanText(channel, message, context).title,
        severity: 'warning',
        timestamp: told.event.timestamp,
        class: 'location coverage',
        details: { monitor: coverage.monitor.name, silent_locations: coverage.silent, status_kept: coverage.monitor.status, monitor_id: coverage.monitor.id },
      })
    }
    const maintenance = maintenanceOf(told)
    if (maintenance) {
      // An informational alert while the window is under way, resolved at its end.
      const dedupKey = `pingward-maintenance-${maintenance.window.id}`
      if (!maintenance.began) return jsonPost(url, { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey })
      return jsonPost(url, {
        routing_key: routingKey,
        event_action: 'trigger',
        dedup_key: dedupKey,
        payload: {
          summary: truncate(humanText(channel, message, context).title, SUMMARY_MAX),
          source: context.publicUrl,
          severity: 'info',
          timestamp: told.event.timestamp,
          class: 'maintenance',
          custom_details: { window_id: maintenance.window.id, mode: maintenance.window.mode, until: maintenance.window.next_ends_at },
        },
        client: 'Pingward',
        client_url: maintenancePageUrl(context.publicUrl),
      })
    }
    if (!parts) {
      // A test: an informational alert of its own, so that it is seen and closes without touching a real one.
      return jsonPost(url, {
        routing_key: routingKey,
        event_action: 'trigger',
        dedup_key: `pingward-test-${told.id}`,
        payload: {
          summary: `Test notification from Pingward (channel ${truncate(channel.name, 200)})`,
          source: context.publicUrl,
          severity: 'info',
          timestamp: told.event.timestamp,
          custom_details: { channel: channel.name },
        },
        client: 'Pingward',
        client_url: `${context.publicUrl}/`,
      })
    }
    const { monitor, incident } = parts
    if (told.event.type === 'incident.acknowledged') {
      return jsonPost(url, { routing_key: routingKey, event_action: 'acknowledge', dedup_key: incident.id })
    }
    if (incident.status === 'resolved') {
      return jsonPost(url, { routing_key: routingKey, event_action: 'resolve', dedup_key: incident.id })
    }
    const text = humanText(channel, message, context)
    const degraded = incidentKind(incident) === 'degraded'
    return monitorTrigger(url, routingKey, monitor, context, {
      dedupKey: incident.id,
      // A degraded incident's title already says its cause ("Homepage is degraded: response took ...").
      summary: degraded ? text.title : `${text.title}: ${incident.cause}`,
      severity: degraded ? 'warning' : 'critical',
      timestamp: incident.started_at,
      class: degraded ? 'response time' : 'uptime check',
      details: {
        monitor: monitor.name,
        url: monitor.url,
        cause: incident.cause,
        status_code: incident.status_code,
        [degraded ? 'degraded_since' : 'down_since']: incident.started_at,
        monitor_id: monitor.id,
        incident_id: incident.id,
      },
    })
  },
}

/** A trigger about one monitor (an incident, a certificate): its alert links to the monitor in the dashboard. */
function monitorTrigger (
  url: string, routingKey: string, monitor: Monitor, context: SendContext,
  alert: { dedupKey: string, summary: string, severity: 'critical' | 'warning', timestamp: string, class: string, details: Record<string, unknown> }
) {
  const link = monitorUrl(context, monitor.id)
  return jsonPost(url, {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: alert.dedupKey,
    payload: {
      summary: truncate(alert.summary, SUMMARY_MAX),
      // PagerDuty wants a source: a monitor without a url (a heartbeat) is named by its page.
      source: monitor.url ?? link,
      severity: alert.severity,
      timestamp: alert.timestamp,
      component: monitor.name,
      class: alert.class,
      custom_details: alert.details,
    },
    client: 'Pingward',
    client_url: link,
    links: [{ href: link, text: `${truncate(monitor.name, 200)} in Pingward` }],
  })
}
