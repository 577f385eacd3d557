/**
 * The one rule for a verifier's binding of a presentation, at sign and at verify alike
 * (docs/credentials.md *Bindings*). A verifier binds a presentation to its request with a
 * challenge (replay) and to itself with a domain (audience). The two families of formats spell
 * them differently, and callers use either spelling:
 *
 * | family | challenge | domain |
 * |---|---|---|
 * | JWT-based (VP-JWT; later SD-JWT KB-JWT and `vp+jwt`) | `nonce` claim; `challenge` accepted | `aud` claim; `domain` accepted |
 * | JSON-LD (and Data Integrity) proofs | `challenge`; `nonce` accepted | `domain`; a single `aud` accepted |
 *
 * Both spellings of one binding with different values are a 422 naming both fields; a binding the
 * format cannot carry (an `aud` list on a JSON-LD proof, which names one domain) is a 422 naming
 * it. Pure and browser-safe: the request schemas call it for their 422s, the handlers for the values.
 */
import { invalid } from '../errors.js'

/** The families of presentation formats, by how they carry a binding. */
export type BindingFamily = 'JWT' | 'JSON-LD'

/** A binding as a request may spell it: either family's names. */
export interface BindingNames {
  challenge?: string
  domain?: string
  nonce?: string
  aud?: string | string[]
}

/** The binding a request asks for, whatever names it used. */
export interface Binding {
  /** The verifier's challenge: a JWT's `nonce`, a JSON-LD proof's `challenge`. */
  challenge?: string
  /** The verifier's domain: a JWT's `aud` (a list at sign), a JSON-LD proof's `domain`. */
  domain?: string | string[]
}

/** Why a binding cannot be read: the field it names and the message of its 422. */
export interface BindingIssue {
  path: keyof BindingNames
  message: string
}

/** How a family carries each binding: its own name, the other family's it accepts, and whether a domain may be a list. */
const CARRIERS = {
  JWT: { challenge: ['nonce', 'challenge'], domain: ['aud', 'domain'], domainList: true, name: 'VP-JWT' },
  'JSON-LD': { challenge: ['challenge', 'nonce'], domain: ['domain', 'aud'], domainList: false, name: 'JSON-LD presentation' },
} as const satisfies Record<
  BindingFamily,
  {
    challenge: [keyof BindingNames, keyof BindingNames]
    domain: [keyof BindingNames, keyof BindingNames]
    domainList: boolean
    name: string
  }
>

const same = (a: string | string[], b: string | string[]) => JSON.stringify([a].flat()) === JSON.stringify([b].flat())

/**
 * The binding `names` ask of a presentation of `family`, or the issues that make it a 422.
 * @param names - the request's `challenge`, `domain`, `nonce`, `aud`
 */
export function bindingOf(family: BindingFamily, names: BindingNames): { binding: Binding; issues: BindingIssue[] } {
  const carrier = CARRIERS[family]
  const issues: BindingIssue[] = []
  const read = (pair: readonly [keyof BindingNames, keyof BindingNames], what: string) => {
    const [own, other] = pair
    const [a, b] = [names[own], names[other]]
    if (a !== undefined && b !== undefined && !same(a, b)) {
      const message = `${own} and ${other} name one binding, the ${carrier.name}’s ${own} (the verifier’s ${what}), and differ: give one`
      issues.push({ path: own, message }, { path: other, message })
    }
    return a ?? b
  }
  const challenge = read(carrier.challenge, 'challenge') as string | undefined
  const domain = read(carrier.domain, 'domain')
  if (Array.isArray(domain) && !carrier.domainList)
    issues.push({
      path: names.aud !== undefined ? 'aud' : 'domain',
      message: `a ${carrier.name}’s proof names one domain: give a single audience (a list is for JWT-based presentations)`,
    })
  return {
    binding: {
      ...(challenge !== undefined && { challenge }),
      ...(domain !== undefined && { domain }),
    },
    issues,
  }
}

/**
 * The binding `names` ask of a presentation of `family`.
 * @throws {IdentityError} 422 naming the fields of its issues (the schemas refuse them first)
 */
function boundOrRefused(family: BindingFamily, names: BindingNames): Binding {
  const { binding, issues } = bindingOf(family, names)
  if (issues.length > 0) throw invalid(`invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`)
  return binding
}

/**
 * A JWT-based presentation's binding in its own claims: `nonce` (the verifier's challenge) and
 * `aud` (its domain; a list at sign). For VP-JWTs today, SD-JWT KB-JWTs and `vp+jwt` later.
 * @throws {IdentityError} 422 as {@link bindingOf}
 */
export function jwtBinding(names: BindingNames): { nonce?: string; aud?: string | string[] } {
  const { challenge, domain } = boundOrRefused('JWT', names)
  return { ...(challenge !== undefined && { nonce: challenge }), ...(domain !== undefined && { aud: domain }) }
}

/**
 * A JSON-LD (Data Integrity) presentation's binding in its proof's terms: `challenge` and one `domain`.
 * @throws {IdentityError} 422 as {@link bindingOf}
 */
export function jsonLdBinding(names: BindingNames): { challenge?: string; domain?: string } {
  const { challenge, domain } = boundOrRefused('JSON-LD', names)
  return { ...(challenge !== undefined && { challenge }), ...(typeof domain === 'string' && { domain }) }
}
