// The probe tests' prober (private targets allowed, closed when the test ends) and their GET target.
import { createProber, type ProbeOptions, type ProbeTarget } from '../../src/checker/probe.ts'
import type { Teardown } from '../helper.ts'

export function testProber (tt: Teardown, options: Partial<ProbeOptions> = {}) {
  const p = createProber({ allowPrivateTargets: true, ...options })
  tt.teardown(() => p.close())
  return p
}

/** A GET of `url` expecting 200 within 5 s, with `extra` over it. */
export const getTarget = (url: string, extra: Partial<ProbeTarget> = {}): ProbeTarget =>
  ({ url, method: 'GET', expectedStatus: 200, timeoutSeconds: 5, ...extra })
