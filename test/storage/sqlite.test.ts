import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { runStorageConformance } from '../../src/testing/index.js'
import { createSqliteStorage } from '../../src/storage/sqlite/index.js'

// One real database file shared by every test (the suite isolates tests by tenant id), reopened
// and re-initialised before each one.
const dir = mkdtempSync(join(tmpdir(), 'didvault-sqlite-conformance-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A fresh copy of a database file in test/fixtures, opened in place (see the make-*.ts scripts there for who wrote each). */
function fixture(file: string) {
  let copies = 0
  return async () => {
    const path = join(dir, `${++copies}-${file}`)
    copyFileSync(new URL(`../fixtures/${file}`, import.meta.url), path)
    return { storage: createSqliteStorage({ path }) }
  }
}

runStorageConformance('sqlite', async () => ({ storage: createSqliteStorage({ path: join(dir, 'conformance.db') }) }), {
  earlierDatabases: {
    'didvault 0.1.0 (test/fixtures/release-0.1.0.db)': fixture('release-0.1.0.db'),
    'a 0.1 database with unkeyed API-key hashes (test/fixtures/previous-release.db)': fixture('previous-release.db'),
    'credentials before issue 16, main at 992c473 (test/fixtures/credentials-992c473.db)': fixture('credentials-992c473.db'),
  },
})
