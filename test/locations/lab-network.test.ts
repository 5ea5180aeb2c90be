// The lab's network (lab/network.ts): a lab made again over one killed before its end takes away what still ran in
// the old namespaces, as well as the namespaces themselves.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { createLabNetwork, labUnavailable } from '../../lab/network.ts'
import { until } from '../helper.ts'

const unavailable = labUnavailable()
// Above any process id's `pid % 100`: no lab of another test file uses it.
const LAB_ID = 150
const pidsIn = (namespace: string) => String(execFileSync('ip', ['netns', 'pids', namespace])).split(/\s+/).filter(Boolean)

t.test('a lab made again kills what a lab killed before its end left running', { skip: unavailable ?? false }, async (t) => {
  const killed = createLabNetwork(['a'], LAB_ID)
  const { namespace } = killed.sites[0]
  const left = spawn('ip', ['netns', 'exec', namespace, 'sleep', '600'], { stdio: 'ignore' })
  const exited = once(left, 'exit')
  t.teardown(() => { left.kill('SIGKILL') })
  await until(() => pidsIn(namespace).includes(String(left.pid)))

  const again = createLabNetwork(['a'], LAB_ID)
  t.teardown(again.close)
  const [code, signal] = await exited
  t.same([code, signal], [null, 'SIGKILL'], 'the process left in the old namespace is killed')
  t.same(pidsIn(again.sites[0].namespace), [], 'the new namespace starts empty')
})
