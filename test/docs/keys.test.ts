/**
 * docs/keys.md's *Writing a key backend* example, as written: its ```ts block is test/docs/keys-kms-backend.ts with the
 * imports of the published package (`didvault`, `didvault/testing`) where the file imports the sources — so the block
 * type-checks with the project (`tsc -p .`) — and importing the file here runs the key-backend conformance suite it
 * declares, against an in-memory stand-in for a KMS.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const DOC = readFileSync(new URL('../../docs/keys.md', import.meta.url), 'utf8')
const EXAMPLE = readFileSync(new URL('./keys-kms-backend.ts', import.meta.url), 'utf8')

describe('docs/keys.md, Writing a key backend', () => {
  it('the example block is test/docs/keys-kms-backend.ts, importing the package', () => {
    const blocks = [...DOC.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1])
    const published = EXAMPLE.replaceAll("'../../src/index.js'", "'didvault'").replaceAll(
      "'../../src/testing/index.js'",
      "'didvault/testing'",
    )
    expect(published).not.toContain('../../src')
    expect(blocks).toContain(published)
  })
})

// Declares `key backend conformance: kms (P-256, an in-memory stand-in)`.
await import('./keys-kms-backend.js')
