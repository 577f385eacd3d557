/**
 * The stored-credential read rule (DESIGN §4 *Stored VC read access*), declared once: each
 * ground is data — which fields of the credential's record it tests, with which operator, against
 * which set of the caller's facts. Two things are compiled from it: the decision
 * `CREDENTIAL_RULES.readCredential` ({@link READ_RULES}, evaluated by `decide` over one
 * credential) and the storage filter of Fetch and Store ({@link readableWhere}, evaluated by the
 * database over all of them). Neither names a ground; they could part only where one operator is
 * evaluated here (`passes`) and by the adapters (`conditionOf`), which
 * test/credentials/read-rule.property.test.ts holds together. Pure; the facts are gathered in
 * `reader-facts.ts`.
 */
import type { Rule } from '../auth/policy-engine.js'
import type { Condition, Where } from '../storage/port.js'
import type { CredentialRecord } from './records.js'

/** What the read rule knows of the caller: the sets a credential's fields are matched against. */
export interface ReaderFacts {
  /** The DIDs the caller acts through. */
  dids: ReadonlySet<string>
  /** The roles the caller holds with `Read` or `Write`. */
  readRoles: ReadonlySet<string>
  /** DIDs whose current owner key the caller holds. */
  ownedDids: ReadonlySet<string>
  /** DIDs one of `readRoles` governs (assigned to them with `governsCredentials`). */
  governedDids: ReadonlySet<string>
}

/** Lists as read-only, everything else as it is. */
type ReadOnlyLists<T> = { readonly [K in keyof T]: T[K] extends ReadonlyArray<infer E> ? readonly E[] : T[K] }

/** The fields of a credential's record the read rule tests (each declared in `CREDENTIALS`, and indexed). */
type ReadField = 'isPublicAccess' | 'storedBy' | 'issuer' | 'subject' | 'did' | 'roles'

/** What the read rule knows of a stored credential: those fields of its record. */
export type ReadableCredential = ReadOnlyLists<Pick<CredentialRecord, ReadField>>

/** The fields of a readable credential whose values are `V`. */
type FieldsOf<V> = { [K in keyof ReadableCredential]-?: ReadableCredential[K] extends V ? K : never }[keyof ReadableCredential]

/** One test of a credential's field, in the storage port's terms: `eq` a constant, `in` or `containsAny` a set of the caller's. */
export type FieldMatch =
  | { field: FieldsOf<boolean>; op: 'eq'; value: boolean }
  /** The field (one value, possibly absent) is in the caller's set `against`. */
  | { field: FieldsOf<string | undefined>; op: 'in'; against: keyof ReaderFacts }
  /** The field (a list) shares an element with the caller's set `against`. */
  | { field: FieldsOf<readonly string[]>; op: 'containsAny'; against: keyof ReaderFacts }

/** A ground of the read rule: its wording (DESIGN, docs/access-control.md, explanations) and the matches, any of which allows. */
export interface ReadGround {
  ground: string
  matches: readonly FieldMatch[]
}

/** The read rule: its grounds, in the order `decide` tries them. */
export const READ_GROUNDS: readonly ReadGround[] = [
  { ground: 'it is public', matches: [{ field: 'isPublicAccess', op: 'eq', value: true }] },
  { ground: 'stored it', matches: [{ field: 'storedBy', op: 'containsAny', against: 'dids' }] },
  { ground: 'issued it', matches: [{ field: 'issuer', op: 'in', against: 'dids' }] },
  { ground: 'is its subject', matches: [{ field: 'subject', op: 'in', against: 'dids' }] },
  { ground: 'holds the owner key of the credential’s DID', matches: [{ field: 'did', op: 'in', against: 'ownedDids' }] },
  {
    // Listed in the record (reaching it alone), or governing its DID (reaching every record with it).
    ground: 'holds a role with Read assigned to the credential',
    matches: [
      { field: 'roles', op: 'containsAny', against: 'readRoles' },
      { field: 'did', op: 'in', against: 'governedDids' },
    ],
  },
]

/** Whether one credential passes a match, with the storage port's semantics (an absent field is in no set). */
function passes(match: FieldMatch, reader: ReaderFacts, credential: ReadableCredential): boolean {
  switch (match.op) {
    case 'eq':
      return credential[match.field] === match.value
    case 'in': {
      const value = credential[match.field]
      return value !== undefined && reader[match.against].has(value)
    }
    case 'containsAny':
      return credential[match.field].some((value) => reader[match.against].has(value))
  }
}

/** A match as a storage condition; undefined when the caller's set is empty (no credential passes it). */
function conditionOf(match: FieldMatch, reader: ReaderFacts): Condition | undefined {
  if (match.op === 'eq') return { field: match.field, op: 'eq', value: match.value }
  const values = [...reader[match.against]]
  return values.length === 0 ? undefined : { field: match.field, op: match.op, value: values }
}

/** The read rule as the policy engine's grounds: a ground holds when one of its matches passes. */
export const READ_RULES: readonly Rule<ReaderFacts, ReadableCredential>[] = READ_GROUNDS.map(({ ground, matches }) => ({
  ground,
  holds: (reader, credential) => matches.some((match) => passes(match, reader, credential)),
}))

/**
 * The read rule as a storage filter: the credentials {@link READ_RULES} allows the caller, as an
 * `or` of indexed conditions. Conditions no credential can pass are left out, and `in` tests of
 * one field are one test of the union (the owner and the role grounds both test `did`). Column
 * tests come first and list tests last: SQLite stops at the first condition that holds, and a
 * list condition read for no row is never read (`storedBy` lists all the caller ever stored).
 */
export function readableWhere(reader: ReaderFacts): Where {
  const conditions: Condition[] = []
  for (const condition of READ_GROUNDS.flatMap((g) => g.matches).map((m) => conditionOf(m, reader))) {
    if (condition === undefined) continue
    const sameField = condition.op === 'in' ? conditions.find((c) => c.op === 'in' && c.field === condition.field) : undefined
    if (sameField?.op === 'in' && condition.op === 'in') sameField.value = [...new Set([...sameField.value, ...condition.value])]
    else conditions.push(condition)
  }
  const listTest = (c: Condition) => Number(c.op === 'containsAny')
  return { or: conditions.sort((a, b) => listTest(a) - listTest(b)) }
}
