/**
 * did:key documents are remembered (a did:key document is a pure function of its DID): each resolution hands out its
 * own copy, so a caller changing one changes no later resolution; a malformed DID is refused every time.
 */
import { describe, expect, it } from 'vitest'
import { didKey } from '../../../src/did/methods/key/index.js'

const ED = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'

describe('did:key resolution cache', () => {
  it('hands out a copy: changing one resolved document changes no later one', async () => {
    const first = (await didKey.resolve(ED)).didDocument!
    const pristine = structuredClone(first)
    first.verificationMethod![0].publicKeyMultibase = 'z6MkwrongKey'
    first.assertionMethod!.push(`${ED}#another`)
    const second = (await didKey.resolve(`${ED}#z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK`)).didDocument!
    expect(second).toEqual(pristine)
    expect(second).not.toBe(first)
  })

  it('refuses a malformed did:key every time', async () => {
    for (let i = 0; i < 2; i++) {
      const { didDocument, didResolutionMetadata } = await didKey.resolve('did:key:z6MkNotAKey')
      expect(didDocument).toBeNull()
      expect(didResolutionMetadata.error).toBe('invalidDid')
    }
  })
})
