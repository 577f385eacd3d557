/**
 * Test harness of helper ui2's screens until the console's shell is merged: mounts one screen with the client the
 * shell gives (API key in a closure, DID-auth tokens per call) and shows reported errors as the shell does
 * (errorType and message).
 */
import { ZOD_CONFIG } from '../../../src/console/jitless.js'
import { render } from 'preact'
import { createClient, IdentityError } from '../../../src/client/index.js'
import type { Screen, ScreenProps } from '../../../src/console/screen.js'
import { AUDIT_SCREEN, OPENID_SCREEN, ROLES_SCREEN, STATUS_LISTS_SCREEN } from '../../../src/console/screens/ui2-index.js'

const SCREENS: Screen[] = [ROLES_SCREEN, STATUS_LISTS_SCREEN, OPENID_SCREEN, AUDIT_SCREEN]

function mountScreen(id: string, baseUrl: string, key: string): void {
  if (!ZOD_CONFIG.jitless) throw new Error('zod would compile with eval')
  const screen = SCREENS.find((s) => s.id === id)
  if (!screen) throw new Error(`no screen ${id}`)
  const client = createClient({ baseUrl, auth: () => ({ authorization: `Bearer ${key}` }) })
  const banner = document.getElementById('errors') as HTMLElement
  const props: ScreenProps = {
    client,
    report: (error) => {
      const item = document.createElement('li')
      item.textContent = error instanceof IdentityError ? `${error.errorType}: ${error.errorMessage}` : String(error)
      banner.append(item)
    },
    asDid: (didAuth) => client.as(() => ({ authorization: `Bearer ${key}`, didAuth })),
  }
  const Component = screen.component
  render(<Component {...props} />, document.getElementById('screen') as HTMLElement)
}

;(window as unknown as { mountScreen: typeof mountScreen }).mountScreen = mountScreen
