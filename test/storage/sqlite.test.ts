import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { runStorageConformance } from '../../src/storage/conformance/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'

// One real database file shared by every test (the suite isolates tests by tenant id), reopened
// and re-initialised before each one.
const dir = mkdtempSync(join(tmpdir(), 'didvault-sqlite-conformance-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

runStorageConformance('sqlite', async () => ({ storage: createSqliteStorage({ path: join(dir, 'conformance.db') }) }))
