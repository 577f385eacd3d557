/** Every collection the service stores, declared by the domains that own them. */
import { API_KEYS } from '../auth/records.js'
import { AUDIT_APPENDS, AUDIT_HEADS, AUDIT_RECORDS } from '../audit/records.js'
import { CREDENTIALS } from '../credentials/records.js'
import { META } from '../custody/records.js'
import { SEALED_KEYS } from '../keys/backends/sealed/records.js'
import { DID_EVENTS, DID_HEADS } from '../did/methods/ethr/index.js'
import { DID_WEB_CHANGES } from '../did/methods/index.js'
import { MPC_KEYS, MPC_SHARES } from '../mpc/records.js'
import { ONE_TIME } from '../one-time/records.js'
import { OID4VCI_CONFIGURATIONS, OID4VCI_DEFERRED, OID4VCI_ISSUERS, OID4VCI_OFFERS } from '../oid4vci/records.js'
import { OID4VP_REQUESTS } from '../oid4vp/records.js'
import { ROLE_ASSIGNMENTS, ROLES } from '../roles/records.js'
import type { CollectionSpec } from '../storage/port.js'
import { STATUS_CHANGES, STATUS_ENTRIES, STATUS_LISTS } from '../status/records.js'
import { VAULTS } from '../vaults/records.js'
import { DELEGATE_KEYS, WALLETS } from '../wallets/records.js'

export const COLLECTIONS: readonly CollectionSpec[] = [
  META,
  API_KEYS,
  SEALED_KEYS,
  VAULTS,
  WALLETS,
  DELEGATE_KEYS,
  ROLES,
  ROLE_ASSIGNMENTS,
  MPC_KEYS,
  MPC_SHARES,
  CREDENTIALS,
  DID_EVENTS,
  DID_HEADS,
  DID_WEB_CHANGES,
  STATUS_LISTS,
  STATUS_ENTRIES,
  STATUS_CHANGES,
  AUDIT_RECORDS,
  AUDIT_HEADS,
  AUDIT_APPENDS,
  ONE_TIME,
  OID4VCI_ISSUERS,
  OID4VCI_CONFIGURATIONS,
  OID4VCI_OFFERS,
  // ---- helper "deferred"
  OID4VCI_DEFERRED,
  OID4VP_REQUESTS,
]
