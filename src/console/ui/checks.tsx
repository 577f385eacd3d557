/**
 * A list of named checks (a credential's Verify, a presentation result): each check's name, what it is about, and
 * passed or failed with its reason and error. Each item carries the check's name (`data-check`) and `pass` or `fail`.
 */

/** A named check as Verify and a presentation result answer it. */
export interface NamedCheck {
  check: string
  verified: boolean
  reason?: string
  error?: string
}

export interface ChecksProps<C extends NamedCheck> {
  checks: readonly C[]
  /** The list's accessible name. */
  label: string
  /** What a check is about, shown in brackets after its name (a status check's type, the credential of a result's check). */
  about?: (check: C) => string | undefined
}

/** The checks as a list, one item each: `name (about): passed`, or `failed — reason — error`. */
export function Checks<C extends NamedCheck>({ checks, label, about }: ChecksProps<C>) {
  return (
    <ul class="checks" aria-label={label}>
      {checks.map((c, i) => {
        const what = about?.(c)
        return (
          <li key={i} class={c.verified ? 'pass' : 'fail'} data-check={c.check}>
            {c.check}
            {what ? ` (${what})` : ''}:{' '}
            {c.verified ? 'passed' : `failed${c.reason ? ` — ${c.reason}` : ''}${c.error ? ` — ${c.error}` : ''}`}
          </li>
        )
      })}
    </ul>
  )
}
