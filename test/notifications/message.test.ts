// The text a person reads: monitor, what failed, since when, for how long, the link; flaps, closes by pause or
// delete, digests; durations, times and the cutting of long text.
import t from 'tap'
import { duration, fitLines, humanText, plainBody, truncate, utcTime } from '../../src/notifications/message.ts'
import {
  EXPIRES, MONITOR_ID, acknowledged, maintenanceEvent, degradedEvent, degradedOpened, degradedResolved, expiring, expiringEvent, flap, monitorRecord, opened, resolved, resolvedEvent, sendContext, stormEvents, test, testEvent, openedEvent, reminder,
} from './support.ts'

const channel = { name: 'Ops phone' }
const context = sendContext()
const link = { url: `https://pingward.example.com/monitors/${MONITOR_ID}`, label: 'Open in Pingward' }

t.test('an incident that opened: the monitor, what failed, since when, for how long so far, the link', async (t) => {
  const text = humanText(channel, opened, context)
  t.strictSame(text, {
    tone: 'down',
    title: 'Homepage is down',
    facts: [
      { label: 'What failed', value: 'expected status 200, got 503' },
      { label: 'Down since', value: '2026-05-01 12:00 UTC' },
      { label: 'Down for', value: '2 min so far' },
      { label: 'Checking', value: 'https://example.com/health', url: true },
    ],
    items: [],
    link,
  })
  t.equal(plainBody(text), [
    'What failed: expected status 200, got 503',
    'Down since: 2026-05-01 12:00 UTC',
    'Down for: 2 min so far',
    'Checking: https://example.com/health',
    '',
    `Open in Pingward: ${link.url}`,
  ].join('\n'))
  const later = humanText(channel, opened, sendContext(undefined, '2026-05-01T14:10:05.000Z'))
  t.equal(later.facts[2].value, '2 h 10 min so far', 'a retry hours later tells how long it has been down by then')
})

t.test('an incident that resolved: how long it was down, from when to when, and what had failed', async (t) => {
  t.strictSame(humanText(channel, resolved, context), {
    tone: 'up',
    title: 'Homepage is up again',
    facts: [
      { label: 'What failed', value: 'expected status 200, got 503' },
      { label: 'Down from', value: '2026-05-01 12:00 UTC to 2026-05-01 12:03 UTC' },
      { label: 'Down for', value: '3 min' },
      { label: 'Checking', value: 'https://example.com/health', url: true },
    ],
    items: [],
    link,
  })
})

t.test('a flap says both in one message: "was down 3 min, now up"', async (t) => {
  const text = humanText(channel, flap, context)
  t.equal(text.tone, 'flap')
  t.equal(text.title, 'Homepage was down 3 min, now up')
  t.same(text.facts.map((fact) => fact.label), ['What failed', 'Down from', 'Down for', 'Checking'])
})

t.test('an incident closed by a pause or a delete does not claim the monitor is up', async (t) => {
  const paused = humanText(channel, { kind: 'event', told: resolvedEvent(undefined, 'pause') }, context)
  t.equal(paused.title, 'Homepage: incident closed, the monitor was paused')
  t.equal(paused.tone, 'info')
  const deleted = humanText(channel, { kind: 'event', told: resolvedEvent(undefined, 'delete') }, context)
  t.equal(deleted.title, 'Homepage: incident closed, the monitor was deleted')
})

t.test('a degraded incident that opened: the title says why (the cause); what is slow, since when, for how long so far, the link', async (t) => {
  t.strictSame(humanText(channel, degradedOpened, context), {
    tone: 'degraded',
    title: 'Homepage is degraded: response took 9120 ms, degraded after 2000 ms',
    facts: [
      { label: 'What is slow', value: 'response took 9120 ms, degraded after 2000 ms' },
      { label: 'Degraded since', value: '2026-05-01 12:00 UTC' },
      { label: 'Slow for', value: '2 min so far' },
      { label: 'Checking', value: 'https://example.com/health', url: true },
    ],
    items: [],
    link,
  })
})

t.test('a degraded incident\'s cause is cut short in its title (160 characters), given whole in its facts', async (t) => {
  const told = degradedEvent('opened')
  const cause = `response took 9120 ms, ${'very '.repeat(60)}slow`
  told.event.data.incident = { ...told.event.data.incident!, cause }
  const text = humanText(channel, { kind: 'event', told }, context)
  t.equal(text.title, `Homepage is degraded: ${cause.slice(0, 159)}…`)
  t.equal(text.facts[0].value, cause)
})

t.test('a degraded incident that resolved: no longer degraded, how long it was slow; ended by going down or a pause, said so', async (t) => {
  t.strictSame(humanText(channel, degradedResolved, context), {
    tone: 'up',
    title: 'Homepage is no longer degraded',
    facts: [
      { label: 'What was slow', value: 'response took 9120 ms, degraded after 2000 ms' },
      { label: 'Degraded from', value: '2026-05-01 12:00 UTC to 2026-05-01 12:03 UTC' },
      { label: 'Slow for', value: '3 min' },
      { label: 'Checking', value: 'https://example.com/health', url: true },
    ],
    items: [],
    link,
  })
  const down = humanText(channel, { kind: 'event', told: degradedEvent('resolved', 'down') }, context)
  t.same([down.tone, down.title], ['info', 'Homepage is no longer degraded: it went down'], 'not green: the down incident\'s own message follows')
  const paused = humanText(channel, { kind: 'event', told: degradedEvent('resolved', 'pause') }, context)
  t.same([paused.tone, paused.title], ['info', 'Homepage: degraded incident closed, the monitor was paused'])
  const flapped = humanText(channel, { kind: 'flap', opened: degradedEvent('opened'), resolved: degradedEvent('resolved') }, context)
  t.same([flapped.tone, flapped.title], ['flap', 'Homepage was degraded 3 min, no longer'])
})

t.test('a monitor without a url (a heartbeat) has no "Checking" line', async (t) => {
  const told = degradedEvent('opened')
  told.event.data.monitor = { ...told.event.data.monitor!, url: null as never }
  t.notOk(humanText(channel, { kind: 'event', told }, context).facts.some((fact) => fact.label === 'Checking'))
})

t.test('a test names the channel and links to the dashboard', async (t) => {
  t.strictSame(humanText(channel, test, context), {
    tone: 'info',
    title: 'Test notification from Pingward',
    facts: [{ label: 'Channel', value: 'Ops phone' }, { label: 'Sent', value: '2026-05-01 12:01 UTC' }],
    items: [],
    link: { url: 'https://pingward.example.com/', label: 'Open Pingward' },
  })
})

t.test('a digest counts the storm and gives one line per event, with its monitor\'s page', async (t) => {
  const text = humanText(channel, { kind: 'digest', told: [...stormEvents(3), testEvent()] }, context)
  t.equal(text.title, '4 notifications: 2 down, 1 up again')
  t.equal(text.tone, 'down')
  t.strictSame(text.items, [
    { tone: 'down', line: 'Monitor 1 is down since 2026-05-01 12:00 UTC: expected status 200, got 503', url: 'https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000000' },
    { tone: 'down', line: 'Monitor 2 is down since 2026-05-01 12:00 UTC: expected status 200, got 503', url: 'https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000001' },
    { tone: 'up', line: 'Monitor 3 is up again after 3 min down', url: 'https://pingward.example.com/monitors/6f1c2a8e-3b4d-4e5f-8a9b-000000000002' },
    { tone: 'info', line: 'Test notification', url: null },
  ])
  t.match(plainBody(text), /^- Monitor 1 is down since .* \(https:\/\/pingward\.example\.com\/monitors\/6f1c2a8e-3b4d-4e5f-8a9b-000000000000\)\n/)
  const closed = humanText(channel, { kind: 'digest', told: [resolvedEvent(monitorRecord({ name: 'API' }), 'pause')] }, context)
  t.equal(closed.title, '1 notifications', 'nothing down or up: no counts')
  t.equal(closed.items[0].line, 'API: incident closed after 3 min, the monitor was paused')
})

t.test('a digest tells both edges of a degraded incident, and counts the degraded', async (t) => {
  const text = humanText(channel, { kind: 'digest', told: [degradedEvent('opened'), degradedEvent('resolved'), degradedEvent('resolved', 'down')] }, context)
  t.equal(text.title, '3 notifications: 1 degraded, 1 up again')
  t.equal(text.tone, 'degraded')
  t.strictSame(text.items, [
    { tone: 'degraded', line: 'Homepage is degraded since 2026-05-01 12:00 UTC: response took 9120 ms, degraded after 2000 ms', url: link.url },
    { tone: 'up', line: 'Homepage is no longer degraded after 3 min slow', url: link.url },
    { tone: 'info', line: 'Homepage is no longer degraded after 3 min slow: it went down', url: link.url },
  ])
  const withDown = humanText(channel, { kind: 'digest', told: [...stormEvents(1), degradedEvent('opened')] }, context)
  t.same([withDown.title, withDown.tone], ['2 notifications: 1 down, 1 degraded', 'down'], 'down outranks degraded')
})

t.test('a certificate near its expiry: in how many days, on which day, who issued it, what is checked, the link', async (t) => {
  const text = humanText(channel, expiring, context)
  t.strictSame(text, {
    tone: 'expiring',
    title: 'The certificate of Homepage expires in 7 days',
    facts: [
      { label: 'Expires on', value: '2026-05-08 11:59 UTC' },
      { label: 'Issued by', value: 'Let\'s Encrypt, R11' },
      { label: 'Checking', value: 'https://example.com/health', url: true },
    ],
    items: [],
    link,
  })
  t.equal(plainBody(text), [
    'Expires on: 2026-05-08 11:59 UTC',
    'Issued by: Let\'s Encrypt, R11',
    'Checking: https://example.com/health',
    '',
    `Open in Pingward: ${link.url}`,
  ].join('\n'))
  t.strictSame(humanText(channel, expiring, sendContext(undefined, '2026-05-06T12:00:00.000Z')), text, 'a retry days later says what the check saw')

  const lastDay = expiringEvent(monitorRecord({ status: 'up', tls_expires_at: EXPIRES, tls_issuer: null }))
  lastDay.event.timestamp = '2026-05-07T13:00:00.000Z'
  const last = humanText(channel, { kind: 'event', told: lastDay }, context)
  t.equal(last.title, 'The certificate of Homepage expires in 1 day', 'one day, not "1 days"')
  t.strictSame(last.facts.map((fact) => fact.label), ['Expires on', 'Checking'], 'no issuer named: no line for it')
})

t.test('a digest tells a certificate near its expiry in a line of its own, and counts it', async (t) => {
  const text = humanText(channel, { kind: 'digest', told: [...stormEvents(2), expiringEvent()] }, context)
  t.equal(text.title, '3 notifications: 2 down, 1 certificate expiring')
  t.equal(text.tone, 'down')
  t.strictSame(text.items[2], { tone: 'expiring', line: 'The certificate of Homepage expires in 7 days, on 2026-05-08 11:59 UTC', url: link.url })
  const only = humanText(channel, { kind: 'digest', told: [expiringEvent(), expiringEvent(monitorRecord({ name: 'Shop', tls_expires_at: EXPIRES }))] }, context)
  t.equal(only.title, '2 notifications: 2 certificates expiring')
  t.equal(only.tone, 'expiring')
})

t.test('durations read as a person says them, two units at most', async (t) => {
  const cases: Array<[number, string]> = [
    [0, '0 s'], [-5, '0 s'], [45, '45 s'], [59.6, '1 min'], [60, '1 min'], [210, '3 min'], [3599, '59 min'],
    [3600, '1 h'], [3660, '1 h 1 min'], [7500, '2 h 5 min'], [86_400, '1 d'], [90_000, '1 d 1 h'], [3 * 86_400 + 4 * 3600 + 59, '3 d 4 h'],
  ]
  for (const [seconds, text] of cases) t.equal(duration(seconds), text, `${seconds} s`)
  t.equal(utcTime('2026-12-31T23:59:59.999Z'), '2026-12-31 23:59 UTC')
})

t.test('long text is cut to the limit, and a digest\'s lines stop with a count of the rest', async (t) => {
  t.equal(truncate('abcdef', 6), 'abcdef')
  t.equal(truncate('abcdefg', 6), 'abcde…')
  const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(2, '0')}`) // 7 characters each
  const fitted = fitLines(lines, 60)
  t.ok(fitted.length <= 60, fitted)
  t.equal(fitted, 'line 00\nline 01\nline 02\nline 03\nline 04\nline 05\n…and 94 more')
  t.equal(fitLines(lines.slice(0, 3), 60), 'line 00\nline 01\nline 02', 'what fits is whole')
  t.equal(fitLines(['x'.repeat(100)], 60), '…and 1 more', 'a line too long for any room is counted')
})

t.test('acknowledged, reminded, and the one-click link of an event that asks for an answer', async (t) => {
  t.strictSame(humanText(channel, acknowledged, context), {
    tone: 'info',
    title: 'Homepage: on-call (sk_live_Ab3d…) acknowledged the down incident',
    facts: [
      { label: 'What failed', value: 'expected status 200, got 503' },
      { label: 'Since', value: '2026-05-01 12:00 UTC' },
      { label: 'Acknowledged', value: '2026-05-01 12:02 UTC' },
    ],
    items: [],
    link,
  })
  const reminded = humanText(channel, reminder, sendContext(undefined, '2026-05-01T12:31:05.000Z'))
  t.equal(reminded.title, 'Reminder: Homepage is still down, and nobody has acknowledged it')
  t.match(reminded.facts, [{ label: 'What failed' }, { label: 'Down since' }, { label: 'Down for', value: '31 min so far' }])
  const url = 'https://pingward.example.com/acknowledge/token'
  const told = openedEvent()
  const withLink = humanText(channel, { kind: 'event', told: { ...told, event: { ...told.event, data: { ...told.event.data, acknowledge_url: url } } } }, context)
  t.same(withLink.facts.at(-1), { label: 'Acknowledge', value: url, url: true }, 'the link, as a fact every adapter shows')
  t.match(plainBody(withLink), `Acknowledge: ${url}`)
})

t.test('a maintenance window\'s start and end: what it covers, how, until when; a digest line', async (t) => {
  t.strictSame(humanText(channel, { kind: 'event', told: maintenanceEvent('started') }, context), {
    tone: 'info',
    title: 'Maintenance began: Database upgrade',
    facts: [
      { label: 'Covers', value: '1 monitor and monitors labelled env:prod' },
      { label: 'Mode', value: 'muted: checks run, nothing is told' },
      { label: 'Until', value: '2026-05-01 13:00 UTC' },
    ],
    items: [],
    link: { url: 'https://pingward.example.com/maintenance', label: 'Open in Pingward' },
  })
  t.equal(humanText(channel, { kind: 'event', told: maintenanceEvent('ended') }, context).title, 'Maintenance ended: Database upgrade')
  const digest = humanText(channel, { kind: 'digest', told: [maintenanceEvent('started'), maintenanceEvent('ended')] }, context)
  t.same(digest.items.map((item) => item.line), ['Maintenance began: Database upgrade', 'Maintenance ended: Database upgrade'])
})
