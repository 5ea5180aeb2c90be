// The app's own route table, so that tests enumerating routes cover the ones added later without a list.
import type { FastifyInstance } from 'fastify'

export interface Route { method: string, path: string }

/** Every route of the app (find-my-way's tree as printRoutes draws it), with `:param` paths. */
export function routeTable (app: FastifyInstance): Route[] {
  const segments: string[] = []
  const routes: Route[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line)
    if (!node) continue
    segments.length = node[1].length / 4
    segments.push(node[2])
    for (const method of node[3]?.split(', ') ?? []) routes.push({ method, path: segments.join('') })
  }
  return routes
}
