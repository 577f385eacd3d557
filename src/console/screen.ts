/** What a console screen is: a title in the navigation and a component given the signed-in client. */
import type { ComponentType } from 'preact'
import type { ClientOperations, DidvaultClient } from '../client/index.js'

/** What every screen is given. */
export interface ScreenProps {
  /** The client of this origin's service, signed in with the tab's API key. */
  client: DidvaultClient
  /** Shows an error in the banner: the server's `errorType` and message, or what went wrong on the way. */
  report: (error: unknown) => void
  /**
   * The operations sent with the tab's API key and this DID-auth token as `x-did-auth` (the operations declared
   * `tenant+did`, such as createCredentialOffer).
   */
  asDid: (didAuth: string) => ClientOperations
}

/** A screen of the console: its id (the URL fragment), its title (navigation and heading) and its component. */
export interface Screen {
  id: string
  title: string
  component: ComponentType<ScreenProps>
}
