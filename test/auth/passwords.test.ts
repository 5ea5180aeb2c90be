// Dashboard password hashing: scrypt with the stored parameters, per-password salt, and refusal of bad hashes.
import t from 'tap'
import { hashPassword, passwordProblem, verifyDecoy, verifyPassword, PASSWORD_MAX_LENGTH } from '../../src/auth/passwords.ts'

t.test('hash and verify', async (t) => {
  const hash = await hashPassword('correct horse battery staple')
  t.match(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/, 'scrypt$N$r$p$salt$hash')
  t.ok(await verifyPassword('correct horse battery staple', hash))
  t.notOk(await verifyPassword('correct horse battery stapler', hash))
  t.notOk(await verifyPassword('', hash))
  t.not(await hashPassword('correct horse battery staple'), hash, 'a fresh salt each time')
  // Unicode forms of the same text are the same password.
  t.ok(await verifyPassword('caf\u00e9 au lait!', await hashPassword('cafe\u0301 au lait!')))
})

t.test('malformed or hostile stored hashes are refused, not run', async (t) => {
  const hash = await hashPassword('a password long enough')
  const parts = hash.split('$')
  const variants = [
    'plain', '', `bcrypt$${parts.slice(1).join('$')}`, parts.slice(0, 5).join('$'),
    ['scrypt', 2 ** 24, 8, 1, parts[4], parts[5]].join('$'), // 16 GiB of memory
    ['scrypt', 1000, 8, 1, parts[4], parts[5]].join('$'), // N not a power of two
    ['scrypt', 'x', 8, 1, parts[4], parts[5]].join('$'),
    ['scrypt', parts[1], 64, 1, parts[4], parts[5]].join('$'),
    ['scrypt', parts[1], 8, 9, parts[4], parts[5]].join('$'),
    ['scrypt', parts[1], 8, 1, '', parts[5]].join('$'),
    ['scrypt', parts[1], 8, 1, parts[4], 'c2hvcnQ='].join('$'),
  ]
  for (const stored of variants) t.notOk(await verifyPassword('a password long enough', stored), stored.slice(0, 30))
  t.notOk(await verifyPassword('x'.repeat(PASSWORD_MAX_LENGTH + 1), hash), 'an overlong password')
  t.equal(await verifyDecoy('anything at all'), false, 'the decoy never matches')
})

t.test('one rule for every way of setting a password', async (t) => {
  t.equal(passwordProblem('123456789'), 'must be at least 10 characters')
  t.equal(passwordProblem('1234567890'), undefined)
  t.equal(passwordProblem('x'.repeat(PASSWORD_MAX_LENGTH + 1)), `must be at most ${PASSWORD_MAX_LENGTH} characters`)
})
