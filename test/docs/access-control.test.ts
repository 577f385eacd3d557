/**
 * docs/access-control.md's examples, run as written: the curl block (bash, curl, jq) against a
 * real router with only the API base URL and the key filled in, and the embedded block with its
 * `didvault` import pointed at the sources.
 */
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHarness, TENANT_A, type Harness } from '../helpers/harness.js'

const run = promisify(execFile)
const DOC = readFileSync(new URL('../../docs/access-control.md', import.meta.url), 'utf8')
const block = (lang: string) => {
  const found = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(DOC)
  if (!found) throw new Error(`docs/access-control.md has no \`\`\`${lang} block`)
  return found[1]
}
const haveTools = ['bash', 'curl', 'jq'].every((tool) => {
  try {
    execFileSync('which', [tool], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h.close())

describe('docs/access-control.md', () => {
  it.skipIf(!haveTools)('the curl block works verbatim', async () => {
    const script = block('sh')
      .replace(/^API=http:\/\/127\.0\.0\.1:8080$/m, `API=${h.url}`)
      .replace(/^KEY=dvk_\.\.\..*$/m, `KEY=${TENANT_A}`)
    expect(script).toContain(`API=${h.url}`)
    expect(script).toContain(`KEY=${TENANT_A}`)
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60_000 })
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const [assigned, seen, refused, permissions, holders, unassigned, deleted] = lines
    const role = assigned.assignments[0].role
    expect(assigned.errors).toEqual([])
    expect(seen).toEqual([{ did: role, permissions: ['Read'] }])
    expect(refused).toMatchObject({ statusCode: 403, errorType: 'FORBIDDEN' })
    expect(permissions).toEqual(['Read', 'Write'])
    expect(holders).toEqual([assigned.assignments[0].did])
    expect(unassigned).toEqual([])
    expect(deleted).toEqual([role])
    expect(lines).toHaveLength(7)
  })

  it('the embedded block runs', async () => {
    const dir = mkdtempSync(join(new URL('.', import.meta.url).pathname, 'tmp-'))
    try {
      const file = join(dir, 'embedded.ts')
      const source = block('ts').replace("from 'didvault'", `from '${new URL('../../src/index.js', import.meta.url).pathname}'`)
      writeFileSync(file, `${source}\nexport const result = { role, assignments }\n`)
      const { result } = await import(file)
      expect(result.assignments).toEqual([
        { role: result.role.did, did: expect.stringMatching(/^did:ethr:dev:0x/), governsCredentials: false, createdAt: expect.any(Number) },
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
