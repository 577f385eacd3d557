/** The status mechanisms the service issues, by credential format: one line per mechanism. */
import type { FormatName } from '../../credentials/formats/index.js'
import { bitstringMechanism } from './bitstring.js'
import type { StatusMechanism } from './port.js'
import { tokenStatusListMechanism } from './token-status-list.js'

export type { AllocatedEntry, ListToSign, SignedListDocument, StatusMechanism } from './port.js'
export { isListProof, LIST_SUITE_OF } from './bitstring.js'

/** The mechanism of each credential format's status entries; formats not named use Bitstring Status Lists. */
const MECHANISM_OF_FORMAT: Partial<Record<FormatName, StatusMechanism>> = {
  'SD-JWT': tokenStatusListMechanism,
}

/** The status mechanism of credentials (and status lists) of `format`. */
export const mechanismOf = (format: FormatName): StatusMechanism => MECHANISM_OF_FORMAT[format] ?? bitstringMechanism
