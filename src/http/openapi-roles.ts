// The document's side of the routes' roles (src/plugins/auth.ts): each API operation names the least role that
// may call it, as `x-required-role` (and past viewer in its description), from the route's own config.role.
import type { SwaggerTransform } from '@fastify/swagger'

type TransformInput = Parameters<SwaggerTransform>[0]
type Loose = Record<string, any>

export function declareRequiredRole ({ schema, url }: { schema: unknown, url: string }, route: TransformInput['route']): { schema: any, url: string } {
  const role = route.config?.role
  if (!role || !schema) return { schema, url }
  const loose = schema as Loose
  if (role === 'viewer') return { url, schema: { ...loose, 'x-required-role': role } }
  const needs = `Needs the \`${role}\` role or a higher one; a \`read\` key acts as a \`viewer\`.`
  return { url, schema: { ...loose, 'x-required-role': role, description: loose.description ? `${loose.description}\n\n${needs}` : needs } }
}
