/**
 * The console's frame: the sign-in form, then the navigation between the screens of `screens/index.ts` (the URL
 * fragment names the screen) and the error banner every screen reports to.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { DidvaultClient } from '../client/index.js'
import type { Screen } from './screen.js'
import { SCREENS } from './screens/index.js'
import { forgetTokens } from './screens/acting.js'
import { actingAs, sessionClient, signIn, signOut } from './session.js'
import { ErrorBanner } from './ui/error-banner.js'
import { shownError, type ShownError } from './ui/errors.js'

const screenOf = (hash: string): Screen => SCREENS.find((s) => `#${s.id}` === hash) ?? SCREENS[0]

/** The whole console. */
export function App() {
  const client = useMemo(() => sessionClient(), [])
  const [signedIn, setSignedIn] = useState(false)
  const [error, setError] = useState<ShownError>()
  const report = useCallback((e: unknown) => setError(shownError(e)), [])
  const leave = () => {
    signOut()
    forgetTokens()
    setSignedIn(false)
    setError(undefined)
  }
  return (
    <>
      <header class="top">
        <span class="brand">didvault console</span>
        {signedIn && (
          <button type="button" class="link" onClick={leave}>
            Sign out
          </button>
        )}
      </header>
      <ErrorBanner error={error} onDismiss={() => setError(undefined)} />
      {signedIn ? (
        <Console client={client} report={report} />
      ) : (
        <SignIn
          client={client}
          onSignedIn={() => {
            setError(undefined)
            setSignedIn(true)
          }}
          report={report}
        />
      )}
    </>
  )
}

interface SignInProps {
  client: DidvaultClient
  onSignedIn: () => void
  report: (error: unknown) => void
}

/** The API key field: the key is tried with one call, kept in memory when the service takes it, and the field cleared. */
function SignIn({ client, onSignedIn, report }: SignInProps) {
  const field = useRef<HTMLInputElement>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => field.current?.focus(), [])
  const submit = async (event: Event) => {
    event.preventDefault()
    const input = field.current!
    const key = input.value.trim()
    // The key leaves the DOM at once, accepted or not.
    input.value = ''
    if (key === '') return
    setBusy(true)
    signIn(key)
    try {
      await client.getVaults({ limit: 1 })
      onSignedIn()
    } catch (e) {
      signOut()
      report(e)
      setBusy(false)
      input.focus()
    }
  }
  return (
    <main id="main" class="signin">
      <h1>Sign in</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autocomplete="off" spellcheck={false} ref={field} required />
        <p class="muted">Kept in this tab&apos;s memory only: not stored, not in the URL; gone when the tab closes.</p>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  )
}

interface ConsoleProps {
  client: DidvaultClient
  report: (error: unknown) => void
}

/** The navigation and the screen the URL fragment names. */
function Console({ client, report }: ConsoleProps) {
  const [hash, setHash] = useState(location.hash)
  useEffect(() => {
    const changed = () => setHash(location.hash)
    addEventListener('hashchange', changed)
    return () => removeEventListener('hashchange', changed)
  }, [])
  const screen = screenOf(hash)
  const Shown = screen.component
  const actAs = useCallback((didAuth: string) => actingAs(client, didAuth), [client])
  return (
    <div class="layout">
      <nav aria-label="Screens">
        <ul>
          {SCREENS.map((s) => (
            <li key={s.id}>
              <a href={`#${s.id}`} aria-current={s === screen ? 'page' : undefined}>
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" data-screen={screen.id}>
        <h1>{screen.title}</h1>
        <Shown key={screen.id} client={client} report={report} asDid={actAs} />
      </main>
    </div>
  )
}
