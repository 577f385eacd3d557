import { defineConfig } from 'tsup'

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      sqlite: 'src/storage/sqlite/index.ts',
      mongo: 'src/storage/mongo/index.ts',
      express: 'src/http/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    splitting: true,
    external: ['better-sqlite3', 'express', 'mongodb', 'vitest'],
  },
  {
    // ESM only: the conformance suite runs under vitest, which cannot be required.
    entry: { testing: 'src/storage/conformance/index.ts' },
    format: ['esm'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    external: ['better-sqlite3', 'express', 'mongodb', 'vitest'],
  },
  {
    entry: { 'cli/main': 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['better-sqlite3', 'express', 'mongodb'],
  },
])
