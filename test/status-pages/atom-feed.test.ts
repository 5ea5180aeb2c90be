// The status page's history.atom checked against RFC 4287 by a real validator: libxml2's RELAX NG (xmllint-wasm) with
// the RFC's own schema (Appendix B, in XML syntax in test/fixtures/atom), and, by hand, the RFC's rules that the schema
// only states as Schematron or prose: an author for every entry, unique entry ids, RFC 3339 dates, a self link.
import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { validateXML } from 'xmllint-wasm'
import { buildTestApp, makeTeam, request } from '../helper.ts'

const SCHEMA = readFileSync(new URL('../fixtures/atom/atom.rng', import.meta.url), 'utf8')
// RFC 3339's date-time, with RFC 4287 3.3's uppercase T and Z.
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/

async function setUp (t: Test) {
  const { app } = await buildTestApp(t)
  const team = await makeTeam(app)
  const api = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    request(app, team.auth, { method, url: `/api/v1${url}`, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
  const slug = `acme-${Math.random().toString(36).slice(2, 8)}`
  const made = await api('POST', '/status-pages', { slug, title: 'Acme status', published: true })
  t.equal(made.statusCode, 201, made.body)
  const page = made.json().data
  const component = async (payload: Record<string, unknown>) => {
    const res = await api('POST', `/status-pages/${page.id}/components`, payload)
    if (res.statusCode !== 201) throw new Error(`component: ${res.statusCode} ${res.body}`)
    return res.json().data
  }
  const publicGet = (path = '', headers: Record<string, string> = {}) => app.inject({ url: `/status/${slug}${path}`, headers })
  return { app, team, api, slug, page, component, publicGet }
}

const validate = async (contents: string) => validateXML({
  xml: [{ fileName: 'history.atom', contents }],
  schema: [{ fileName: 'atom.rng', contents: SCHEMA }],
  extension: 'relaxng',
})

/** The elements named `name` in `xml`: their attributes and their content (empty for `<name/>`). */
function elements (xml: string, name: string) {
  return [...xml.matchAll(new RegExp(`<${name}(\\s[^>]*?)?(?:/>|>([\\s\\S]*?)</${name}>)`, 'g'))].map((m) => ({
    attributes: Object.fromEntries([...(m[1] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])),
    content: m[2] ?? '',
  }))
}

t.test('history.atom is valid Atom by RFC 4287\'s RELAX NG schema and by the rules the schema leaves to prose', async (t) => {
  const { api, page, slug, component, publicGet } = await setUp(t)
  const web = await component({ name: 'Web', manual_status: 'operational' })
  const report = async (title: string, message: string, updates: Array<{ status: string, message: string }>) => {
    const made = await api('POST', '/status-reports', { status_page_ids: [page.id], title, component_ids: [web.id], message })
    t.equal(made.statusCode, 201, made.body)
    for (const update of updates) {
      const posted = await api('POST', `/status-reports/${made.json().data.id}/updates`, update)
      t.equal(posted.statusCode, 201, posted.body)
    }
    return made.json().data.id as string
  }
  const resolved = await report('Login failures', 'Some sign-ins fail.', [{ status: 'resolved', message: 'Fixed <for good> & all.' }])
  const open = await report('Slow <form> pages & ]]> more', 'Looking into it.', [{ status: 'identified', message: 'A slow query.' }])

  const res = await publicGet('/history.atom')
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], 'application/atom+xml')
  const atom = res.body

  const result = await validate(atom)
  t.equal(result.valid, true, 'valid by RFC 4287 Appendix B')
  if (!result.valid) t.comment(`${result.rawOutput}\n${atom}`)

  const entries = elements(atom, 'entry').map((entry) => entry.content)
  const head = atom.slice(0, atom.indexOf('<entry>') === -1 ? atom.length : atom.indexOf('<entry>'))
  t.equal(entries.length, 2, 'one entry per report')
  const ids = entries.map((entry) => elements(entry, 'id')[0]?.content)
  t.same(ids, [`urn:uuid:${open}`, `urn:uuid:${resolved}`], 'newest change first')
  t.equal(new Set(ids).size, ids.length, 'entry ids are unique (4.2.6)')
  for (const id of [...ids, elements(head, 'id')[0]?.content]) t.match(id, /^[a-z][a-z\d+.-]*:\S+$/i, `${id} is an absolute IRI`)

  const text = (element: { content: string } | undefined) => (element?.content ?? '').replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
  const titles = entries.map((entry) => elements(entry, 'title')[0])
  t.same(titles.map((title) => title?.attributes.type), ['html', 'html'])
  t.equal(text(titles[0]), 'Slow &lt;form&gt; pages &amp; ]]&gt; more (Identified)', 'a type="html" title is the report\'s title escaped as HTML')

  const authorsNamed = (xml: string) => elements(xml, 'author').filter((author) => elements(author.content, 'name')[0]?.content.trim())
  t.ok(authorsNamed(head).length > 0 || entries.every((entry) => authorsNamed(entry).length > 0),
    'the feed has an atom:author with a name, or every entry has one (4.1.1)')
  for (const entry of entries) {
    t.ok(elements(entry, 'link').some((link) => (link.attributes.rel ?? 'alternate') === 'alternate') || elements(entry, 'content').length > 0,
      'each entry has an alternate link or content (4.1.1.1, 4.1.2)')
  }

  const dates = [...elements(atom, 'updated'), ...elements(atom, 'published')].map((date) => date.content)
  t.equal(dates.length, 1 + 2 * entries.length, 'the feed\'s updated, and each entry\'s updated and published')
  for (const date of dates) t.ok(RFC3339.test(date) && !Number.isNaN(Date.parse(date)), `${date} is an RFC 3339 date-time (3.3)`)

  const self = elements(head, 'link').filter((link) => link.attributes.rel === 'self')
  t.equal(self.length, 1, 'the feed has one link rel="self" (4.1.1)')
  t.equal(new URL(self[0]?.attributes.href ?? '').pathname, `/status/${slug}/history.atom`, 'an absolute IRI of the feed itself')
  t.equal(elements(head, 'link').filter((link) => (link.attributes.rel ?? 'alternate') === 'alternate').length, 1, 'one alternate link')

  const broken = atom.replace(/<updated>[^<]*<\/updated>/, '<updated>yesterday</updated>')
  t.not(broken, atom)
  const control = await validate(broken)
  t.equal(control.valid, false, 'the validator refuses a feed whose updated is no date')
  t.match(control.errors.map((error) => error.message).join('\n'), /dateTime/)
})
