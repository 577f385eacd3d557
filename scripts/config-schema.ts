/**
 * `npm run config:schema`: writes the config file's JSON Schema (`schemas/didvault.config.schema.json`,
 * shipped as `didvault/config.schema.json`) and the settings table of docs/operations.md, both
 * from the zod schema of `src/config/schema.ts`. Tests fail when either is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { configJsonSchema } from '../src/config/schema.js'
import { settingsTable, withSettingsTable } from '../src/config/reference.js'

const ROOT = join(import.meta.dirname, '..')
const SCHEMA_FILE = join(ROOT, 'schemas/didvault.config.schema.json')
const DOCS_FILE = join(ROOT, 'docs/operations.md')

const schema = configJsonSchema()
const prettier = await resolveConfig(SCHEMA_FILE)
writeFileSync(SCHEMA_FILE, await format(JSON.stringify(schema), { ...prettier, parser: 'json' }))
writeFileSync(DOCS_FILE, withSettingsTable(readFileSync(DOCS_FILE, 'utf8'), settingsTable(schema)))
console.log(`wrote ${SCHEMA_FILE} and the settings table of ${DOCS_FILE}`)
