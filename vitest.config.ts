import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

/**
 * Test files run in parallel, one fork each, as many as the machine has cores (vitest's own default keeps one core
 * free, which on a 2-core CI machine runs the files one by one); DIDVAULT_TEST_WORKERS sets another number.
 */
const workers = Number(process.env.DIDVAULT_TEST_WORKERS) || Math.max(2, availableParallelism())

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: workers,
  },
})
