// Renders the OpenAPI document exactly as the running service serves it (for openapi/openapi.json).
import { buildApp } from './app.ts'
import { loadConfig } from '../runtime/config.ts'

export async function renderOpenApi (): Promise<string> {
  const app = await buildApp({ config: loadConfig({ DATA_DIR: 'memory://', CHECKER: 'off' }), logger: false })
  try {
    await app.ready()
    return JSON.stringify(app.swagger(), null, 2) + '\n'
  } finally {
    await app.close()
  }
}
