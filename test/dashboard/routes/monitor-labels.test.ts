// Labels and dependencies on the monitor form: a "key: value" per line and a checkbox per other monitor, as the
// API takes them; shown on the monitor's page; an edit clears them.
import t from 'tap'
import { buildTestApp } from '../../helper.ts'
import { signedIn, storedRow } from '../dashboard-helper.ts'

t.test('labels and dependencies set, shown and cleared through the form', async (t) => {
  const { app } = await buildTestApp(t)
  const browser = await signedIn(app)
  const router = await browser.post('/monitors', { name: 'Router', url: 'https://router.example.com', monitor_type: 'site', is_active: 'on' })
  t.equal(router.statusCode, 303)
  const routerId = (router.headers.location as string).split('/')[2].split('?')[0]
  const form = await browser.get('/')
  t.match(form.body, `name="depends:${routerId}"`, 'the other monitors are offered')

  const bad = await browser.post('/monitors', { name: 'Shop', url: 'https://shop.example.com', monitor_type: 'site', labels: 'env prod', depends_on_shown: 'on' })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, 'Labels: line 1 (&quot;env prod&quot;) is not &quot;Name: value&quot;')
  const made = await browser.post('/monitors', {
    name: 'Shop', url: 'https://shop.example.com', monitor_type: 'site', is_active: 'on', labels: 'env: prod\nteam: payments', depends_on_shown: 'on', [`depends:${routerId}`]: 'on',
  })
  t.equal(made.statusCode, 303)
  const shopId = (made.headers.location as string).split('/')[2].split('?')[0]
  const row = await storedRow(app, shopId)
  t.same([row.labels, row.dependsOn], [{ env: 'prod', team: 'payments' }, [routerId]])
  const page = await browser.get(`/monitors/${shopId}`)
  t.match(page.body, '<li>env: prod</li><li>team: payments</li>')
  t.match(page.body, `<dt>Depends on</dt><dd><a href="/monitors/${routerId}">Router</a></dd>`)
  const editForm = await browser.get(`/monitors/${shopId}/edit`)
  t.match(editForm.body, new RegExp(`name="depends:${routerId}" type="checkbox" checked`), 'the edit form shows the dependency')
  t.notMatch(editForm.body, `name="depends:${shopId}"`, 'not itself')

  const cycle = await browser.post(`/monitors/${routerId}/edit`, { name: 'Router', url: 'https://router.example.com', monitor_type: 'site', is_active: 'on', depends_on_shown: 'on', [`depends:${shopId}`]: 'on' })
  t.equal(cycle.statusCode, 400)
  t.match(cycle.body, 'would make a cycle: Router → Shop → Router')
  const cleared = await browser.post(`/monitors/${shopId}/edit`, { name: 'Shop', url: 'https://shop.example.com', monitor_type: 'site', is_active: 'on', labels: '', depends_on_shown: 'on' })
  t.equal(cleared.statusCode, 303)
  const after = await storedRow(app, shopId)
  t.same([after.labels, after.dependsOn], [{}, []])

  await browser.post(`/monitors/${routerId}/edit`, { name: 'Router', url: 'https://router.example.com', monitor_type: 'site', is_active: 'on', labels: 'env: prod', depends_on_shown: 'on' })
  const filtered = await browser.get('/?label=env:prod')
  t.equal(filtered.statusCode, 200)
  t.match(filtered.body, `href="/monitors/${routerId}">Router</a>`)
  t.notMatch(filtered.body, `href="/monitors/${shopId}">Shop</a>`, 'the list keeps the labelled monitors only')
  t.match(filtered.body, 'id="monitor-label" name="label" value="env:prod"')
  t.match((await browser.get('/?label=env:staging')).body, 'No monitor matches the label env:staging.')
  t.equal((await browser.get('/?label=Bad Key')).statusCode, 400)
})
