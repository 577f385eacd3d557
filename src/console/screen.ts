/** The shell's contract with its screens: each screen is a component given the signed-in client. */
import type { ComponentType } from 'preact'
import type { ClientOperations, DidvaultClient } from '../client/index.js'

export interface ScreenProps {
  client: DidvaultClient
  report(error: unknown): void
  /** The operations sent with the API key and this DID-auth token as `x-did-auth` (operations declared `tenant+did`). */
  asDid(didAuth: string): ClientOperations
}

export interface Screen {
  id: string
  title: string
  component: ComponentType<ScreenProps>
}
