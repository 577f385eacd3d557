/**
 * The response_uri's form body read (OID4VP 1.0 §8.2, §8.3, §8.5): `vp_token` as a JSON string, an encrypted
 * `response`, the wallet's `error`; a parameter given twice, two answers in one body, none, an oversized or too deeply
 * nested body refused before anything is parsed; a decrypted payload read the same way.
 */
import { describe, expect, it } from 'vitest'
import { parseVpResponseForm, parseVpResponsePayload } from '../../src/oid4vp/protocol/index.js'

const bounds = { maxBytes: 4096, maxDepth: 16 }
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

describe('parseVpResponseForm', () => {
  it('reads a vp_token (a JSON object) and state, from the text or the router’s object of strings', () => {
    const fields = { vp_token: JSON.stringify({ pid: ['eyJ…~'] }), state: 'st' }
    const expected = { ok: true, kind: 'vp_token', vpToken: { pid: ['eyJ…~'] }, state: 'st' }
    expect(parseVpResponseForm(form(fields), bounds)).toEqual(expected)
    expect(parseVpResponseForm(fields, bounds)).toEqual(expected)
    // Unknown parameters are ignored (RFC 6749 §3.1).
    expect(parseVpResponseForm({ ...fields, presentation_submission: '{}' }, bounds)).toEqual(expected)
  })

  it('reads an encrypted response and a wallet error (its description in OAuth’s characters)', () => {
    expect(parseVpResponseForm(form({ response: 'a.b.c.d.e' }), bounds)).toEqual({ ok: true, kind: 'jwe', response: 'a.b.c.d.e' })
    expect(parseVpResponseForm(form({ error: 'access_denied', error_description: 'the user said “no”', state: 'st' }), bounds)).toEqual({
      ok: true,
      kind: 'error',
      error: 'access_denied',
      errorDescription: "the user said 'no'",
      state: 'st',
    })
    expect(parseVpResponseForm(form({ error: 'bad"code' }), bounds)).toMatchObject({ ok: false, error: /OAuth error code/ })
  })

  it('refuses a parameter given twice, two answers in one body, and a body with none', () => {
    expect(parseVpResponseForm('vp_token=%7B%7D&state=a&state=b', bounds)).toEqual({
      ok: false,
      error: 'state: a parameter may be given once',
    })
    for (const fields of [
      { vp_token: '{}', response: 'a.b.c.d.e' },
      { vp_token: '{}', error: 'access_denied' },
      { response: 'a.b.c.d.e', error: 'access_denied' },
    ])
      expect(parseVpResponseForm(fields, bounds)).toEqual({ ok: false, error: expect.stringMatching(/exactly one of/) })
    expect(parseVpResponseForm({ state: 'st' }, bounds)).toEqual({ ok: false, error: expect.stringMatching(/no vp_token/) })
  })

  it('refuses a vp_token that is not a JSON object, malformed, doubled, too deep or too big — the size before parsing', () => {
    const refused = (vpToken: string, error: RegExp) =>
      expect(parseVpResponseForm({ vp_token: vpToken, state: 's' }, bounds)).toEqual({ ok: false, error: expect.stringMatching(error) })
    refused('["a"]', /must be a JSON object/)
    refused('"a"', /must be a JSON object/)
    refused('{', /not JSON/)
    refused('{"q":[],"q":[]}', /twice/)
    refused(`{"q":${'['.repeat(20)}${']'.repeat(20)}}`, /deeper/)
    refused('{"q":["\\u0000"]}', /U\+0000/)
    // Over the bound and not JSON: refused for its size, never parsed.
    refused('{' + 'x'.repeat(5000), /over 4096 bytes/)
    expect(parseVpResponseForm(form({ vp_token: '{}', pad: 'x'.repeat(5000) }), bounds)).toEqual({
      ok: false,
      error: 'the response is over 4096 bytes',
    })
    // Multi-byte characters count as their UTF-8 bytes.
    expect(parseVpResponseForm({ vp_token: JSON.stringify({ q: ['é'.repeat(2100)] }) }, bounds)).toMatchObject({ ok: false })
  })

  it('refuses a state that is not a non-empty string and a non-string field of the embedded API', () => {
    expect(parseVpResponseForm({ vp_token: '{}', state: '' }, bounds)).toMatchObject({ ok: false, error: /state/ })
    expect(parseVpResponseForm({ vp_token: { q: [] } }, bounds)).toMatchObject({
      ok: false,
      error: /vp_token: a form parameter is a string/,
    })
  })
})

describe('parseVpResponsePayload', () => {
  it('reads a decrypted payload’s vp_token as an object or as its JSON text, and an error', () => {
    expect(parseVpResponsePayload({ vp_token: { q: ['x'] }, state: 's' }, bounds)).toEqual({
      ok: true,
      kind: 'vp_token',
      vpToken: { q: ['x'] },
      state: 's',
    })
    expect(parseVpResponsePayload({ vp_token: '{"q":["x"]}' }, bounds)).toEqual({ ok: true, kind: 'vp_token', vpToken: { q: ['x'] } })
    expect(parseVpResponsePayload({ error: 'access_denied', state: 's' }, bounds)).toEqual({
      ok: true,
      kind: 'error',
      error: 'access_denied',
      state: 's',
    })
  })

  it('refuses a JWE inside a JWE, a vp_token array, a state that is not a string', () => {
    expect(parseVpResponsePayload({ response: 'a.b.c.d.e' }, bounds)).toMatchObject({ ok: false, error: /cannot hold another/ })
    expect(parseVpResponsePayload({ vp_token: [{}] }, bounds)).toMatchObject({ ok: false, error: /must be a JSON object/ })
    expect(parseVpResponsePayload({ vp_token: {}, state: 7 }, bounds)).toMatchObject({ ok: false, error: /state/ })
  })
})
