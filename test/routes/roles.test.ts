// Every role on every route of the API (api-contract section 12): a member's key gets 2xx where its role includes
// the one the route declares, and 403 with the contract's message, changing nothing, where it does not. The routes
// and their roles come from the app's own route table and document, so a route added later is covered as well.
import t from 'tap'
import { includesRole } from '../../src/domain/roles.ts'
import { ROLES, type Role } from '../../src/domain/vocabulary.ts'
import { buildTestApp, makeMember, makeTeam } from '../helper.ts'
import { bodyFor, deletingTheOrganizationLast, documented, keyedRoutes, makeTarget, needsKey, openApi, operation, organizationState, urlOf, walkedAppEnv } from '../support/api-routes.ts'
import { targetServer } from '../support/target-server.ts'

const FORBIDDEN = { error: 'API key does not have access to this resource' }

t.test('each role gets 2xx or 403 on every route, as the route declares', async (t) => {
  const { app } = await buildTestApp(t, { env: await walkedAppEnv(t) })
  const receiver = await targetServer(t, (_req, res) => { res.writeHead(204).end() })
  const doc = await openApi(app)
  const routes = keyedRoutes(app)
  t.same(documented(doc).filter((r) => r.includes(' /api/v1/') && needsKey(r) && !routes.some((k) => `${k.method} ${k.path}` === r)), [],
    'the route table holds every documented API route')
  const declared = new Map(routes.map((r) => [`${r.method} ${r.path}`, operation(doc, r)?.['x-required-role'] as Role | undefined]))
  for (const [route, role] of declared) t.ok(role && ROLES.includes(role), `${route} declares its role in the document (${role})`)
  t.same([...new Set(declared.values())].sort(), ['admin', 'editor', 'owner', 'responder', 'viewer'], 'the routes need viewer, responder, editor, admin or owner')

  // Each role, and an owner's read-only key, which acts as a viewer.
  const callers: Array<{ label: string, role: Role, acts: Role, scope: 'read' | 'write' }> = [
    ...ROLES.map((role) => ({ label: role, role, acts: role, scope: 'write' as const })),
    { label: 'owner with a read key', role: 'owner', acts: 'viewer', scope: 'read' },
  ]
  for (const caller of callers) {
    // A team, not a personal organization, so that its owner may delete it: last, since it takes everything.
    const owner = await makeTeam(app)
    const member = await makeMember(app, owner.orgId, caller.role, caller.scope)
    for (const route of deletingTheOrganizationLast(routes)) {
      const name = `${route.method} ${route.path}`
      const needed = declared.get(name)!
      const payload = await bodyFor(app, doc, route, owner, member.user.email)
      const target = await makeTarget(app, owner, route, receiver.url)
      const before = await organizationState(app, owner.orgId)
      const res = await app.inject({
        method: route.method as 'GET', url: urlOf(route, target), headers: member.auth, ...(payload ? { payload } : {}),
      })
      // A read key changes nothing, whatever the route's role.
      if (includesRole(caller.acts, needed) && (caller.scope === 'write' || route.method === 'GET' || route.method === 'HEAD')) {
        t.ok(res.statusCode >= 200 && res.statusCode < 300, `${caller.label}: ${name} (needs ${needed}) answers ${res.statusCode} ${res.body}`)
      } else {
        t.equal(res.statusCode, 403, `${caller.label}: ${name} (needs ${needed}) is refused`)
        if (route.method !== 'HEAD') t.same(res.json(), FORBIDDEN, `${caller.label}: ${name}: the contract's message`)
        t.equal(await organizationState(app, owner.orgId), before, `${caller.label}: ${name} changed nothing`)
      }
    }
  }
})
