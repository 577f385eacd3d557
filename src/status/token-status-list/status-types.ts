/**
 * The Status Types of draft-ietf-oauth-status-list (§ Status Types, the IANA "Status List Types" registry): the value a
 * Status List holds for each Referenced Token.
 */

/** 0x00 "VALID": the Referenced Token is valid, correct or legal. */
export const STATUS_VALID = 0x00
/** 0x01 "INVALID": the Referenced Token is revoked, annulled, taken back, recalled or cancelled (final). */
export const STATUS_INVALID = 0x01
/** 0x02 "SUSPENDED": the Referenced Token is temporarily invalid; it needs `bits` ≥ 2. */
export const STATUS_SUSPENDED = 0x02

/** The number of bits per Referenced Token a Status List may use. */
export type StatusListBits = 1 | 2 | 4 | 8

/** The values of `bits` the draft allows. */
export const STATUS_LIST_BITS: readonly StatusListBits[] = [1, 2, 4, 8]

/** Whether `value` is a `bits` the draft allows. */
export const isStatusListBits = (value: unknown): value is StatusListBits => STATUS_LIST_BITS.includes(value as StatusListBits)
