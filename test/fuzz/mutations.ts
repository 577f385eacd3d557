/**
 * Mutations of a valid request value: a wrong type, a missing or an extra member (`__proto__`
 * among them), a huge string, array or number, awkward unicode (lone surrogates, U+0000, bidi
 * overrides), deep and wide values with U+0000 or a lone surrogate at depth (in a key or a value),
 * at any node of the value or for the whole body.
 */
import fc from 'fast-check'

type Path = Array<string | number>

/** How deep a node may be to be mutated: a mutation of a mutation may be thousands of levels deep (buried strings). */
const MUTABLE_DEPTH = 100

/** Every node of `value` down to {@link MUTABLE_DEPTH}, as paths from the root (the root is `[]`); iterative. */
function pathsOf(value: unknown): Path[] {
  const out: Path[] = []
  const stack: Array<[unknown, Path]> = [[value, []]]
  while (stack.length > 0) {
    const [node, path] = stack.pop()!
    out.push(path)
    if (path.length === MUTABLE_DEPTH || typeof node !== 'object' || node === null) continue
    const children: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((item, i) => [i, item]) : Object.entries(node)
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i][1], [...path, children[i][0]]])
  }
  return out
}

/** A copy of `value` with `change` applied to the node at `path` (its parent and key given too). */
function edit(value: unknown, path: Path, change: (node: unknown) => unknown): unknown {
  if (path.length === 0) return change(value)
  const [head, ...rest] = path
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) }
  copy[head] = edit(copy[head], rest, change)
  return copy
}

/** `object` with an own, enumerable member `key` (even `__proto__`). */
function withMember(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...object }
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true })
  return copy
}

const WRONG_TYPES: unknown[] = [0, -1, 1.5, 'x', '', true, false, null, [], {}, [null], { '': null }]
const HUGE: unknown[] = [
  'x'.repeat(300_000),
  Array.from({ length: 5_000 }, () => 'a'),
  Array.from({ length: 2_000 }, () => ({ a: 1 })),
  1e308,
  -1e308,
  2 ** 64,
  Number.MAX_SAFE_INTEGER + 2,
  -0,
]
/** Strings that break naive encoders, databases and regexes. */
const UNICODE = [
  '\uD800',
  '\uDFFF',
  'a\uDC00b',
  '\u0000',
  'did:ethr:dev:0x\u0000',
  '\u202Eevil',
  '\uFEFF',
  '😀'.repeat(100),
  'e\u0301\u0301\u0301',
  '\u{10FFFF}',
  '%00',
  '../../etc/passwd',
  "'; DROP TABLE wallets; --",
  '$where',
  '{"$gt":""}',
]
const EXTRA_KEYS = ['extra', '__proto__', 'constructor', 'prototype', '', '$gt', 'tenantId']

/** Strings no request may hold (issue 28): U+0000 and lone surrogates. */
const UNSTORABLE = ['\u0000', 'a\u0000b', '\uD800', 'x\uDC00', '\uDBFF\u0000']

/**
 * An unstorable string buried `depth` levels of arrays or objects deep, as a value or as a key,
 * beside `width` clean strings at the top: bodies around `limits.depth` (64) and past it.
 */
function buried(depth: number, kind: 'arrays' | 'objects', text: string, asKey: boolean, width: number): unknown {
  let inner: unknown = asKey ? { [text]: 1 } : text
  for (let i = 0; i < depth; i++) inner = kind === 'arrays' ? [inner] : { a: inner }
  return width === 0 ? inner : [...Array<string>(width).fill('w'), inner]
}

/** Whole bodies no operation takes. */
const WRONG_BODIES: unknown[] = [null, [], 'text', 42, true, [{}], { a: { b: { c: [] } } }]

/** The mutations of `value`: each a changed copy. */
export function mutationsOf(value: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(value)
  const at = fc.constantFrom(...paths)
  const objects = paths.filter((p) => {
    const node = p.reduce<any>((v, k) => v?.[k], value)
    return typeof node === 'object' && node !== null && !Array.isArray(node)
  })
  const members = objects.flatMap((p) => Object.keys(p.reduce<any>((v, k) => v[k], value) as object).map((key) => [...p, key]))
  const options: Array<fc.Arbitrary<unknown>> = [
    fc.tuple(at, fc.constantFrom(...WRONG_TYPES)).map(([path, wrong]) => edit(value, path, () => wrong)),
    fc.tuple(at, fc.constantFrom(...HUGE)).map(([path, huge]) => edit(value, path, () => huge)),
    fc
      .tuple(at, fc.constantFrom(...UNICODE))
      .map(([path, text]) => edit(value, path, (node) => (typeof node === 'string' ? node + text : text))),
    fc.constantFrom(...WRONG_BODIES),
    fc
      .tuple(
        at,
        fc.oneof(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1, max: 2_000 })),
        fc.constantFrom('arrays' as const, 'objects' as const),
        fc.constantFrom(...UNSTORABLE),
        fc.boolean(),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5_000 })),
      )
      .map(([path, depth, kind, text, asKey, width]) => edit(value, path, () => buried(depth, kind, text, asKey, width))),
  ]
  if (members.length > 0)
    options.push(fc.constantFrom(...members).map((path) => edit(value, path.slice(0, -1), (node) => omit(node, path.at(-1)!))))
  if (objects.length > 0)
    options.push(
      fc
        .tuple(fc.constantFrom(...objects), fc.constantFrom(...EXTRA_KEYS), fc.constantFrom(...WRONG_TYPES, ...UNICODE))
        .map(([path, key, extra]) => edit(value, path, (node) => withMember(node as Record<string, unknown>, key, extra))),
    )
  return fc.oneof(...options)
}

function omit(node: unknown, key: string | number): unknown {
  if (Array.isArray(node)) return node.filter((_, i) => i !== key)
  const copy = { ...(node as Record<string, unknown>) }
  delete copy[key as string]
  return copy
}

/** Query or path strings: awkward unicode, huge, empty. */
export const awkwardStrings: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...UNICODE, '', ' ', 'x'.repeat(4_000)),
  fc.string({ unit: 'binary' }),
)
