/**
 * The body scan (src/operations/check-json-text.ts) refuses an object naming a member twice — escapes decoded — and
 * only that: the same key in sibling objects, in nested objects, or as a value is not a repetition.
 */
import { describe, expect, it } from 'vitest'
import { checkJsonText } from '../../src/operations/check-json-text.js'

const check = (text: string) => () => checkJsonText(new TextEncoder().encode(text), 64)
const twice = (path: string) => `invalid request: ${path}: a member appears twice in one object`

describe('duplicate members in a JSON body', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"x":{"b":[1,{"c":1,"d":2,"c":3}]}}', 'x.b.1.c'],
    ['{"n\\u0061me":1,"name":2}', 'name'],
    ['{"a":{"k":1},"b":0,"a":{"k":1}}', 'a'],
  ])('%s: 422 naming %s', (text, path) => {
    expect(check(text)).toThrow(twice(path))
    expect(() => JSON.parse(text)).not.toThrow()
  })

  it.each(['[{"a":1},{"a":2}]', '{"a":{"a":{"a":1}}}', '{"a":"a","b":["a","a"]}', '{"a":{},"b":{"a":1}}', '{"":1,"a":""}'])(
    '%s: accepted',
    (text) => {
      expect(check(text)).not.toThrow()
    },
  )
})
