import fjs from 'fast-json-stringify'
import { MonitorListEnvelope, MonitorListItemSchema } from '../../src/schemas/monitor.ts'
import { CheckListEnvelope, CheckSchema } from '../../src/schemas/check.ts'
const item = (i: number) => ({ id: 'd63cb6a2-474b-4f8a-b4e9-16414dded' + String(i).padStart(3, '0'), name: 'Monitor ' + i, url: 'http://127.0.0.1:9/m' + i, monitor_type: 'site', status: 'up', is_active: true, interval_minutes: 1, last_checked_at: '2026-11-21T20:23:21.762Z' })
const data = { data: Array.from({ length: 1000 }, (_, i) => item(i)) }
const s1 = fjs(MonitorListEnvelope as any, { schema: { MonitorListItem: MonitorListItemSchema } } as any)
const check = (i: number) => ({ id: 'd63cb6a2-474b-4f8a-b4e9-16414dded' + String(i).padStart(3, '0'), monitor_id: 'd63cb6a2-474b-4f8a-b4e9-16414dded000', is_up: true, status_code: 200, response_time_ms: 123, checked_at: '2026-11-21T20:23:21.762Z', error_message: null })
const cdata = { data: Array.from({ length: 100 }, (_, i) => check(i)) }
const s2 = fjs(CheckListEnvelope as any, { schema: { Check: CheckSchema } } as any)
if (s1(data) !== JSON.stringify(data)) console.log('DIFF list')
if (s2(cdata) !== JSON.stringify(cdata)) console.log('DIFF checks')
for (const [name, f, d, n] of [['fjs list', s1, data, 2000], ['JSON list', JSON.stringify, data, 2000], ['fjs checks', s2, cdata, 20000], ['JSON checks', JSON.stringify, cdata, 20000]] as const) {
  let t = performance.now(); let x = 0
  for (let i = 0; i < n; i++) x += (f as any)(d).length
  t = performance.now(); for (let i = 0; i < n; i++) x += (f as any)(d).length
  console.log(name, ((performance.now() - t) / n * 1000).toFixed(1), 'us')
}
