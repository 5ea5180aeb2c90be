// API key format: sk_ + 32 base62 + 6-character checksum, the checksum check, the stored hash and the display prefix;
// an agent token is the same after pwa_, and neither passes for the other.
import { createHash } from 'node:crypto'
import t from 'tap'
import { generateAgentToken, generateApiKey, hashApiKey, isWellFormedAgentToken, isWellFormedKey, keyPrefix } from '../../src/auth/keys.ts'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

t.test('a new key is sk_ plus 38 base62 characters, well formed, and different every time', async (t) => {
  const keys = new Set(Array.from({ length: 200 }, () => generateApiKey()))
  t.equal(keys.size, 200, 'no two keys alike')
  t.same([...keys].filter((k) => !/^sk_[0-9A-Za-z]{38}$/.test(k)), [], 'every key has the form')
  t.same([...keys].filter((k) => !isWellFormedKey(k)), [], 'every key passes its own checksum')
  // The 32 random characters use the whole alphabet, not a subset of it.
  const seen = new Set([...keys].flatMap((k) => [...k.slice(3, 35)]))
  t.equal(seen.size, 62)
})

t.test('the checksum refuses a key with any one character changed', async (t) => {
  const key = generateApiKey()
  let refused = 0
  for (let i = 3; i < key.length; i++) {
    const other = ALPHABET[(ALPHABET.indexOf(key[i]) + 1 + (i % 61)) % 62]
    const changed = key.slice(0, i) + other + key.slice(i + 1)
    t.not(changed, key)
    if (!isWellFormedKey(changed)) refused++
  }
  t.equal(refused, key.length - 3, 'every single-character change is refused')
  // Swapping two different neighbouring characters of the random part is caught too.
  const swapAt = [...key.slice(3, 35)].findIndex((c, i, a) => c !== a[i + 1]) + 3
  const swapped = key.slice(0, swapAt) + key[swapAt + 1] + key[swapAt] + key.slice(swapAt + 2)
  t.notOk(isWellFormedKey(swapped), 'a transposition is refused')
})

t.test('keys of the wrong form are refused', async (t) => {
  const key = generateApiKey()
  for (const bad of [
    '', 'sk_', key.slice(0, -1), key + 'a', key.replace('sk_', 'pk_'), key.replace('sk_', 'SK_'),
    ` ${key}`, `${key}\n`, key.slice(0, 20) + '-' + key.slice(21), key.slice(3),
  ]) t.notOk(isWellFormedKey(bad), JSON.stringify(bad))
})

t.test('the stored hash is the SHA-256 of the whole key, in hex', async (t) => {
  const key = generateApiKey()
  const hash = hashApiKey(key)
  t.match(hash, /^[0-9a-f]{64}$/)
  t.equal(hash, createHash('sha256').update(key).digest('hex'))
  t.equal(hashApiKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'the FIPS 180-2 test vector')
  t.not(hashApiKey(key), hashApiKey(generateApiKey()))
})

t.test('the display prefix is sk_ and the first 8 random characters, far too little to use', async (t) => {
  const key = generateApiKey()
  const prefix = keyPrefix(key)
  t.equal(prefix, key.slice(0, 11))
  t.match(prefix, /^sk_[0-9A-Za-z]{8}$/)
  t.ok(key.startsWith(prefix))
  t.notOk(isWellFormedKey(prefix))
})

t.test('an agent token is pwa_ plus 38 base62 characters with the key\'s checksum; a key is no token, a token no key', async (t) => {
  const tokens = Array.from({ length: 100 }, () => generateAgentToken())
  t.equal(new Set(tokens).size, 100)
  t.same(tokens.filter((token) => !/^pwa_[0-9A-Za-z]{38}$/.test(token) || !isWellFormedAgentToken(token)), [], 'the form and the checksum')
  const token = tokens[0]
  for (const bad of [token.slice(0, -1), `${token}a`, token.replace('pwa_', 'PWA_'), token.slice(0, 10) + (token[10] === 'a' ? 'b' : 'a') + token.slice(11)]) {
    t.notOk(isWellFormedAgentToken(bad), bad)
  }
  const key = generateApiKey()
  t.notOk(isWellFormedAgentToken(key), 'a key is no agent token')
  t.notOk(isWellFormedKey(token), 'an agent token is no key')
  t.equal(keyPrefix(token), token.slice(0, 11), 'shown by the same prefix')
  t.equal(hashApiKey(token), createHash('sha256').update(token).digest('hex'), 'hashed as a key is')
})
