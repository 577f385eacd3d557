/**
 * The one rule for text the service did not choose — identifiers from signed content (credential
 * ids, DIDs, types, `jti`, list ids…) and request paths — where it reaches a log line, an audit
 * record or the CLI: every character that can move the cursor, recolour a terminal, reorder or hide
 * text is shown as an escape, so what an operator reads is what was sent, in order. Stored
 * credentials keep the text as given; only these views escape it.
 */

/**
 * C0 and C1 controls and DEL (`\p{Cc}`: ESC starts terminal sequences), format characters
 * (`\p{Cf}`: bidi embeddings, overrides and isolates, LRM/RLM/ALM, zero-width characters, tags),
 * line and paragraph separators (U+2028/U+2029) and lone surrogates.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu
const HAS_UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u

/** `\u001b`, `\u202e`; a character beyond the BMP as `\u{e0041}`. */
function escapeOne(char: string): string {
  const code = char.codePointAt(0)!
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `text` with every control, format, separator and lone-surrogate character replaced by its `\u…`
 * escape; other text (a backslash included) unchanged. Idempotent: an escaped text has nothing
 * left to escape, so a view may escape what an earlier one already did. Text without such a
 * character is returned as it is (one regex test).
 */
export function escapeText(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE, escapeOne) : text
}
