/**
 * The settings table of docs/operations.md *Configuration*, generated from the config file's
 * JSON Schema (itself generated from the zod schema): one row per setting — config key, flag,
 * environment variable, embedded option, default, description — plus the settings that are
 * never in a file. `npm run config:schema` writes it; a test fails when the docs differ.
 */

/** A JSON Schema node, as far as the table reads it. */
interface SchemaNode {
  type?: string
  description?: string
  default?: unknown
  properties?: Record<string, SchemaNode>
  items?: SchemaNode
  /** A setting that is a value or an object of settings (`storage`: a URL, or `{ url, … }`). */
  anyOf?: SchemaNode[]
  'x-flag'?: string
  'x-env'?: string
  'x-embedded'?: string
}

/** Settings outside the file: the file itself, and the secrets the environment alone gives. */
const OUTSIDE_THE_FILE = [
  '| — | `--config <file>` | `DIDVAULT_CONFIG` | — | none | The config file (JSON, or YAML for `.yaml`/`.yml`). |',
  '| — | — | `DIDVAULT_MASTER_KEY` | `masterKey` | `<db>.key` (SQLite), random (memory) | The master key: never a config setting. |',
  '| — | — | `DIDVAULT_PREVIOUS_MASTER_KEYS` | `previousMasterKeys` | `<db>.previous.key` (SQLite, during a rotation) | ' +
    'Earlier master keys, comma-separated (64 hex characters or passphrases), besides those of `previousMasterKeyFiles`: ' +
    'never a config setting. |',
  '| — | — | `DIDVAULT_API_KEYS` | `service.apiKeys.add(tenant, key)` | none | `tenant:key,…` registered at start. |',
]

const code = (text: string | undefined) => (text === undefined ? '—' : `\`${cell(text)}\``)
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function rows(node: SchemaNode, prefix: string): string[] {
  return Object.entries(node.properties ?? {}).flatMap(([key, child]) => {
    if (key === '$schema') return []
    const path = `${prefix}${key}`
    if (child.type === 'object' && child.properties) return rows(child, `${path}.`)
    const own = [
      `| \`${path}\` | ${code(child['x-flag'])} | ${code(child['x-env'])} | ${code(child['x-embedded'])} | ` +
        `${child.default === undefined ? 'none' : code(JSON.stringify(child.default))} | ${cell(child.description ?? '')} |`,
    ]
    const items = child.type === 'array' ? child.items : undefined
    if (items?.type === 'object' && items.properties) return [...own, ...rows(items, `${path}[].`)]
    // The object form's own settings (its first property repeats the value form: left out).
    const object = child.anyOf?.find((option) => option.type === 'object' && option.properties)
    if (object) return [...own, ...rows({ properties: Object.fromEntries(Object.entries(object.properties!).slice(1)) }, `${path}.`)]
    return own
  })
}

/** The Markdown table of every setting of `jsonSchema` (the config file's JSON Schema). */
export function settingsTable(jsonSchema: object): string {
  return [
    '| Config key | Flag | Environment | Embedded option | Default | Description |',
    '|---|---|---|---|---|---|',
    ...rows(jsonSchema, ''),
    ...OUTSIDE_THE_FILE,
  ].join('\n')
}

/** Where the table sits in docs/operations.md. */
export const TABLE_START = '<!-- config-settings:start (npm run config:schema) -->'
export const TABLE_END = '<!-- config-settings:end -->'

/** `markdown` with the text between the table's markers replaced by `table`. @throws {Error} markers missing */
export function withSettingsTable(markdown: string, table: string): string {
  const start = markdown.indexOf(TABLE_START)
  const end = markdown.indexOf(TABLE_END)
  if (start < 0 || end < start) throw new Error(`the settings table's markers (${TABLE_START} … ${TABLE_END}) are missing`)
  return `${markdown.slice(0, start + TABLE_START.length)}\n${table}\n${markdown.slice(end)}`
}
