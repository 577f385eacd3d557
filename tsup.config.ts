import { defineConfig } from 'tsup'

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      sqlite: 'src/storage/sqlite/index.ts',
      mongo: 'src/storage/mongo/index.ts',
      postgres: 'src/storage/postgres/index.ts',
      express: 'src/http/index.ts',
      // The OID4VCI protocol adapter: the only entry that loads the optional @openid4vc peers.
      oid4vc: 'src/oid4vc.ts',
      // The PKCS#11 HSM key backend: the only entry that loads the optional pkcs11js peer.
      pkcs11: 'src/pkcs11.ts',
      // The JSON-LD worker pool's module: piscina loads it by path, beside the code that starts the pool.
      'canonize-worker': 'src/proofs/jsonld/canonize-worker.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    splitting: true,
    // import.meta.url in the CommonJS build (the pool finds its worker module with it).
    shims: true,
    external: ['better-sqlite3', 'express', 'mongodb', 'pg', 'pkcs11js', 'vitest', /^@openid4vc\//],
  },
  {
    // ESM only: the conformance suite runs under vitest, which cannot be required.
    entry: { testing: 'src/testing/index.ts' },
    format: ['esm'],
    dts: true,
    sourcemap: true,
    target: 'node20',
    external: ['better-sqlite3', 'express', 'mongodb', 'pg', 'vitest'],
  },
  {
    // The HTTP client, built apart so it shares no chunk with the Node entries: it must load in browsers.
    entry: { client: 'src/client/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    platform: 'browser',
    target: 'es2022',
  },
  {
    // The web console (docs/console.md): one minified script and one stylesheet beside index.html, everything bundled
    // (Preact, the client, qrcode) so the page asks nothing of any other host; `didvault serve --console` serves it.
    entry: { main: 'src/console/main.tsx' },
    outDir: 'dist/console',
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    minify: true,
    splitting: false,
    sourcemap: false,
    tsconfig: 'src/console/tsconfig.json',
    publicDir: 'src/console/public',
    noExternal: [/./],
    esbuildOptions(options) {
      options.jsx = 'automatic'
      options.jsxImportSource = 'preact'
      options.legalComments = 'none'
    },
  },
  {
    entry: { 'cli/main': 'src/cli/main.ts', 'cli/canonize-worker': 'src/proofs/jsonld/canonize-worker.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['better-sqlite3', 'express', 'mongodb', 'pg'],
  },
])
