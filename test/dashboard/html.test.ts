// The dashboard's HTML helpers: escaping, formatting and the server-side SVG charts.
import t from 'tap'
import { escapeHtml, html, raw } from '../../src/http/html.ts'
import { ago, duration, percent, statusBadge, timeTag, utc } from '../../src/dashboard/format.ts'
import { msLabel, niceCeiling, pingTimeline, responseTimeChart, sparkline } from '../../src/dashboard/charts.ts'
import { messageFor } from '../../src/dashboard/pages/forms.ts'
import { localPath } from '../../src/dashboard/respond.ts'

t.test('html escapes every value unless it is markup made by html or raw', async (t) => {
  t.equal(escapeHtml('<a href="x" onclick=\'y\'>&'), '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;')
  const name = '"><script>alert(1)</script>'
  t.equal(html`<input value="${name}">`.value, '<input value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">')
  t.equal(html`<p>${html`<b>${'<i>'}</b>`}</p>`.value, '<p><b>&lt;i&gt;</b></p>', 'nested markup is kept, its values escaped')
  t.equal(html`${[1, '<', html`<br>`]}|${null}|${undefined}|${false}|${0}`.value, '1&lt;<br>||||0')
  t.equal(html`${raw('<svg/>')}`.value, '<svg/>')
  t.equal(String(html`a`), 'a')
})

t.test('times, durations and percentages in words', async (t) => {
  const now = new Date('2026-11-21T12:00:00.000Z')
  t.equal(utc('2026-11-21T09:30:05.123Z'), '2026-11-21 09:30:05 UTC')
  // The two largest units, the smaller one left out when zero: a 90 s outage is not "1 min".
  const durations: Array<[number, string]> = [
    [0, '0 s'], [-5, '0 s'], [42, '42 s'], [59, '59 s'], [59.6, '1 min'], [60, '1 min'], [90, '1 min 30 s'], [299, '4 min 59 s'],
    [3599, '59 min 59 s'], [3600, '1 h'], [3661, '1 h 1 min'], [90 * 60, '1 h 30 min'], [86_399, '23 h 59 min'], [86_400, '1 d'],
    [86_400 + 60, '1 d'], [86_400 + 4 * 3600 + 60, '1 d 4 h'], [400 * 86_400 + 3600, '400 d 1 h'],
  ]
  for (const [seconds, text] of durations) t.equal(duration(seconds), text, `${seconds} s`)
  t.match(ago(new Date(now.getTime() - 5000), now).value, '>just now</time>')
  t.match(ago('2026-11-21T11:57:00.000Z', now).value, '<time datetime="2026-11-21T11:57:00.000Z" title="2026-11-21 11:57:00 UTC" data-ago>3 min ago</time>')
  t.match(ago(null, now).value, 'Never')
  t.match(timeTag(null, 'Not yet').value, 'Not yet')
  t.same([null, 100, 99.999, 75, 0].map(percent), ['No checks', '100%', '99.99%', '75.00%', '0.00%'])
})

t.test('field messages start with the field\'s label', async (t) => {
  t.equal(messageFor('Interval', { field: 'interval_minutes', message: 'body/interval_minutes must be <= 1440' }), 'Interval must be <= 1440')
  t.equal(messageFor('URL', { field: 'url', message: 'body/url: 10.0.0.1 is not a public address' }), 'URL: 10.0.0.1 is not a public address')
  t.equal(messageFor('Name', { field: 'name', message: 'body/name is required' }), 'Name is required')
})

t.test('local paths only', async (t) => {
  t.same(['/', '/a?b=c', '//x', '/\\x', 'http://x', '', undefined, '/a\nb', `/${'a'.repeat(2001)}`].map((p) => localPath(p)),
    ['/', '/a?b=c', '/', '/', '/', '/', '/', '/', '/'])
})

t.test('sparkline and chart: shapes for down checks and a text summary', async (t) => {
  t.match(sparkline([]).value, 'No checks yet')
  const one = sparkline([{ responseTimeMs: 0, isUp: true }]).value
  t.match(one, '<polyline points="100,44"/><circle cx="100" cy="44" r="4"/>', 'one check is a dot')
  const spark = sparkline([{ responseTimeMs: 100, isUp: true }, { responseTimeMs: 50, isUp: false }, { responseTimeMs: 200, isUp: false }]).value
  t.match(spark, '<polyline points="4,24 100,34 196,4"/><rect x="96" y="30" width="8" height="8"/><rect x="192" y="0" width="8" height="8"/></svg>')
  t.match(spark, 'aria-label="Last 3 checks: 2 down, 50 to 200 ms"')
  t.same([0, 7, 10, 11, 99, 150, 200, 201, 999, 1001, 7000].map(niceCeiling), [10, 10, 10, 20, 100, 200, 200, 500, 1000, 2000, 10000])
  t.match(responseTimeChart([]).value, 'No checks yet')
  const chart = responseTimeChart([{ responseTimeMs: 120, isUp: true }], 'c').value
  t.match(chart, '1 check: response time 120 to 120 ms, all up.')
  t.match(chart, '<circle class="up" cx="352" cy="83.2" r="3"/>')
  const many = responseTimeChart(Array.from({ length: 61 }, (_, i) => ({ responseTimeMs: i, isUp: i !== 5, checkedAt: `2026-11-21T10:${String(i % 60).padStart(2, '0')}:00.000Z` }))).value
  t.notMatch(many, '<circle', 'no dots when there are many checks')
  t.equal(many.match(/<rect class="down"/g)?.length, 1)
  t.match(many, '>100 ms</text>')
  t.same([0, 250, 1000, 2500, 10000].map(msLabel), ['0 ms', '250 ms', '1 s', '2.5 s', '10 s'])
})

t.test('a heartbeat\'s timeline: whether each ping came, no response time', async (t) => {
  t.match(pingTimeline([]).value, 'No pings yet')
  t.match(pingTimeline([{ responseTimeMs: 0, isUp: true }]).value, '<circle cx="100" cy="24" r="4"/></svg>', 'one ping is a dot in the middle')
  const beats = pingTimeline([{ responseTimeMs: 0, isUp: true }, { responseTimeMs: 0, isUp: false }, { responseTimeMs: 0, isUp: true }]).value
  t.match(beats, '<circle cx="4" cy="24" r="4"/><rect x="96" y="20" width="8" height="8"/><circle cx="196" cy="24" r="4"/></svg>')
  t.match(beats, 'aria-label="Last 3 heartbeats: 1 failed or missed"')
  t.match(pingTimeline([{ responseTimeMs: 0, isUp: true }]).value, 'aria-label="Last 1 heartbeat: all pinged in time"')
  t.notMatch(beats, ' ms', 'no time in it')
})

t.test('a status badge says when the latest checks fail, fewer than mark the monitor down', async (t) => {
  t.equal(statusBadge('up').value, '<span class="st st-up">Up</span>')
  t.equal(statusBadge('up', { failures: 1, threshold: 3 }).value,
    '<span class="st st-up st-failing" title="The latest check failed; 3 in a row mark it down">Up, failing 1 of 3</span>')
  t.match(statusBadge('degraded', { failures: 2, threshold: 3 }).value, 'title="The latest 2 checks failed; 3 in a row mark it down">Degraded, failing 2 of 3</span>')
})
