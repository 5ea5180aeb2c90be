// The app's own route table, so that tests enumerating routes cover the ones added later without a list.
import type { FastifyInstance } from 'fastify'

export interface Route { method: string, path: string }

/**
 * Every route of the app (find-my-way's tree as printRoutes draws it), with `:param` paths. A route bound to a
 * constraint (a status page's custom domain, routed by Host) is the twin of a route listed here, and is left out.
 */
export function routeTable (app: FastifyInstance): Route[] {
  const segments: string[] = []
  const routes: Route[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    // A node (`├── key (GET, HEAD)`), or more routes of the node above on a line of their own (`    key (POST) {...}`).
    const node = /^([│ ]*)([├└]── )?(\S+?)(?: \(([A-Z, ]+)\)( \{.*\})?)?$/.exec(line)
    if (!node) continue
    if (node[2]) {
      segments.length = node[1].length / 4
      segments.push(node[3])
    }
    if (node[5]) continue
    for (const method of node[4]?.split(', ') ?? []) routes.push({ method, path: segments.join('') })
  }
  return routes
}
