/** The `didvault` usage texts, and the error that means "wrong arguments" (exit 2). */

/** Wrong arguments: printed to stderr with a hint, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

const PREVIOUS_KEY_FILE = `  --previous-master-key-file <path>
                  a file holding an earlier master key (64 hex characters, mode 0600), accepted for opening
                  secrets while a master-key rotation runs; repeatable (config: previousMasterKeyFiles). Never a
                  key on the command line`

const STORAGE = `  --storage <s>   sqlite:<path> (default sqlite:./didvault.db), postgres://user@host[:port]/db[?schema=<name>],
                  mongodb://host[:port]/db, or memory`

const ENVIRONMENT = `environment:
  DIDVAULT_MASTER_KEY   64 hex characters (raw key) or a passphrase; unset: <db>.key (SQLite) or a random key (memory);
                        required with PostgreSQL and MongoDB
  DIDVAULT_PREVIOUS_MASTER_KEYS
                        earlier master keys, comma-separated (each 64 hex characters or a passphrase), accepted for
                        opening secrets while a master-key rotation runs; with <db>.key, <db>.previous.key is read too
  DIDVAULT_STORAGE      the --storage value when the flag is not given (keeps a postgres:// or mongodb:// password
                        out of the process list)`

export const USAGE = {
  main: `usage: didvault <command> [options]

commands:
  serve           run the HTTP service
  keys            create, list and revoke API keys (Base Auth Tokens)
  config          check a config file, print the effective config
  audit           verify the hash-chained audit trail
  master-key      rotate the master key while servers run

options:
  -h, --help      this text (also: didvault <command> --help)
  -v, --version   the version

${ENVIRONMENT}`,

  serve: `usage: didvault serve [--config <file>] [--host 127.0.0.1] [--port 8080] [--storage <s>] [--workers <n|auto>]
                      [--context <url>=<file.jsonld>]... [--cors <origin>]... [--console] [--public-url <url>]
                      [--status-list-origin <origin>]... [--did-web-origin <origin>]... [--log-level <level>]
                      [--log-format json|pretty] [--metrics on|off] [--metrics-port <n>] [--drain-ms <ms>]
                      [--previous-master-key-file <path>]... [--oid4vci on|off]
                      [--hsm-module <path> --hsm-token-label <label> [--hsm-pin-file <path>]]

  --config <file> a config file, JSON or YAML (.yaml/.yml; also DIDVAULT_CONFIG): every setting below and those
                  without a flag (networks, resolvers, limits, tokens). A flag given overrides the environment,
                  which overrides the file, which overrides the defaults (docs/operations.md#configuration).
                  An unknown key or a wrong value stops the start, naming its key path
  --host <h>      address to listen on (default 127.0.0.1)
  --port <n>      port, 0..65535 (default 8080; 0 = any free port)
${STORAGE}
  --workers <n>   processes serving the port, 1..64 or auto (the available cores); default 1. More than 1
                  needs a storage the processes share (SQLite, a database server; not memory). Each worker
                  runs max(1, cores / workers) JSON-LD threads. A worker that dies is replaced; SIGTERM
                  drains them all
  --context <url>=<file.jsonld>
                  a JSON-LD context document (a JSON object with "@context") credentials may reference
                  by <url>, read from the file at start (the path is what follows the last "="); repeatable.
                  Contexts are never fetched: without it only the bundled ones (credentials, security,
                  DID, secp256k1 suites, undefined-terms) are known. A problem with a file stops the start.
  --cors <origin> let browser pages of this origin (scheme://host[:port], e.g. https://app.example.com)
                  call the API; repeat for more origins. Default: none (browsers refuse cross-origin calls)
  --console       serve the web console at /console (static files of the package, strict Content-Security-
                  Policy; sign in with an API key): docs/console.md. Default: off
  --public-url <url>
                  the service's public base URL (absolute http(s), no query or fragment; also
                  DIDVAULT_PUBLIC_URL): status lists are published at <url>/status/<listId>, a URL signed
                  into credentials issued with status. Without it, issuing with status is refused
  --status-list-origin <origin>
                  an origin (https://host[:port]; http only on loopback) whose status lists credentials
                  being verified may name; repeatable. Lists elsewhere fail their check, never fetched.
                  Default: none, or DIDVAULT_STATUS_LIST_ORIGINS (comma-separated) when no flag is given
  --did-web-origin <origin>
                  an origin (https://host[:port]; http only on loopback) whose did:web DID documents the service
                  may fetch to resolve a did:web it does not hold; repeatable. A did:web elsewhere resolves to
                  notFound, never fetched. Default: none, or DIDVAULT_DID_WEB_ORIGINS (comma-separated)
  --log-level <l> fatal, error, warn, info (default), debug, trace or silent: one JSON line per request and event,
                  below warn on stdout, warn and above on stderr; secrets redacted, bodies never logged
  --log-format <f>
                  json (default) or pretty (for a terminal; needs the optional package pino-pretty)
  --metrics on|off
                  GET /metrics in the Prometheus text format, on the service's port (default on);
                  GET /health/live and /health/ready are always served
  --metrics-port <n>
                  serve /metrics on this port of the same host instead (with --workers, from the primary)
  --drain-ms <ms> after SIGTERM/SIGINT, how long in-flight requests may take (default 10000); requests arriving
                  meanwhile get 503 stopping. Then connections are cut and the process exits (1); a second
                  signal cuts them at once (docs/operations.md#stopping)
  --oid4vci on|off
                  serve the OpenID for Verifiable Credential Issuance issuer (docs/oid4vci.md); needs --public-url and
                  the optional packages @openid4vc/openid4vci, @openid4vc/oauth2, @openid4vc/utils. Default: on when the
                  config file has an oid4vci section (its settings and declared issuers), else off
  --hsm-module <path>, --hsm-token-label <label>, --hsm-pin-file <path>
                  a PKCS#11 HSM (config section hsm; needs the optional package pkcs11js): its library, the token's
                  label, and a file (mode 0600) holding the user PIN, else DIDVAULT_HSM_PIN; the PIN is never an
                  argument and never logged. HSM wallets (keyManagement HSM) are made in it. A wrong PIN or a missing
                  token stops the start (exit 2) naming the setting; /health/ready is 503 while the token is away.
                  Config hsm.masterKey: true keeps the master key in the token too (hsm.masterKeyLabel: the token
                  key's label); DIDVAULT_MASTER_KEY and <db>.key, when present, are then previous keys (docs/keys.md
                  "The master key in an HSM")
${PREVIOUS_KEY_FILE}

On a database without API keys, the first start creates one for tenant "default" and prints
it once, after the port is bound.

${ENVIRONMENT}
  DIDVAULT_API_KEYS     tenant:key,tenant:key registered at start (idempotent)
  DIDVAULT_CONFIG       the --config file when the flag is not given
  DIDVAULT_HSM_PIN      the HSM's user PIN when there is no hsm.pinFile (--hsm-pin-file)`,

  config: `usage: didvault config <check|print> [options]

  didvault config check <file>
      validates a config file (JSON, or YAML for .yaml/.yml) without starting anything: prints "ok: <file>"
      and exits 0, or names each wrong key path on stderr and exits 2
  didvault config print [--config <file>] [serve flags...]
      prints the effective config (flags > environment > file > defaults) as JSON, with the passwords of
      storage URLs and the keys of rpcUrls and resolver URLs masked; notes what the environment overrides

  The master key is never a config setting: DIDVAULT_MASTER_KEY (or the SQLite key file) only, or with
  hsm.masterKey: true a key that never leaves the HSM.`,

  keys: `usage: didvault keys <create|list|revoke> [options]

  didvault keys create --tenant <id> [--label <text>] [--json] [--create] [--storage <s>] [--config <file>]
      creates a key and prints it once (only its keyed hash is stored). The storage must be one a server
      has used; --create sets up a new one (before the first start)
  didvault keys list [--tenant <id>] [--json] [--storage <s>] [--config <file>]
      id, tenant, label, created, last used (never the key)
  didvault keys revoke <id> [--storage <s>] [--config <file>]
      deletes a key; running servers refuse it from the next request on, and it stays refused for good:
      a revoked key still listed in DIDVAULT_API_KEYS is not registered again (the start warns, naming its id)

${STORAGE}
  --config <file> without --storage or DIDVAULT_STORAGE: the storage of this config file (also DIDVAULT_CONFIG)
${PREVIOUS_KEY_FILE}

${ENVIRONMENT}`,

  masterKey: `usage: didvault master-key rotate --new-key-file <path> [--storage <s> | --config <file>]
                                    [--previous-master-key-file <path>]...
       didvault master-key rotate --to-hsm [--hsm-module <path> --hsm-token-label <label>]
                                    [--hsm-pin-file <path>] [--hsm-key-label <label>] [--storage <s> | --config <file>]...
       didvault master-key rotate --to-file <path> [--hsm-module <path> --hsm-token-label <label>]
                                    [--hsm-pin-file <path>] [--storage <s> | --config <file>]...

  reseals every secret of the storage (keys, mnemonics, shares, the API-key hashing key) under the new
  master key while servers keep running on it, then records masterKey.rotate on the audit trail's
  system chain. Progress goes to stderr. Resumable: run it again after an interruption.

  It refuses, naming them (pid, host), while a running server seals with another key: first restart
  every server with the new key as master key and the current one as a previous key
  (DIDVAULT_MASTER_KEY=<new> with DIDVAULT_PREVIOUS_MASTER_KEYS=<current>, or
  --previous-master-key-file), then run this; once it is done, restart them without the previous key.
  The current key is DIDVAULT_MASTER_KEY (plus DIDVAULT_PREVIOUS_MASTER_KEYS and the
  --previous-master-key-file keys), or <db>.key.

  With the SQLite <db>.key file (no DIDVAULT_MASTER_KEY), it first puts the new key in <db>.key and
  the current one in <db>.previous.key, which serve reads as a previous key: the first run installs
  them (and refuses while servers run with the old key), a restart gives every server both, the
  second run reseals and removes <db>.previous.key. docs/operations.md "Master-key rotation".

  --new-key-file <path>
                  the new master key: 64 hex characters (openssl rand -hex 32), mode 0600
  --to-hsm        moves the master key into a PKCS#11 token: a data key wrapped by an AES key made in
                  the token (or the one --hsm-key-label names) becomes the master key; with <db>.key,
                  the file is removed once done. Servers then start with the HSM master key.
  --to-file <path>
                  moves the master key out of the token into a new random key file (0600; an existing
                  file is the key of a rotation begun, taken again)
  --hsm-module <path>, --hsm-token-label <label>, --hsm-pin-file <path>
                  the PKCS#11 module, the token's label and a file (mode 0600) holding the user PIN (else
                  DIDVAULT_HSM_PIN; never an argument); over the config file's hsm section field by field.
                  docs/keys.md "The master key in an HSM".
  --hsm-key-label <label>
                  the token key wrapping the master key (default: config hsm.masterKeyLabel, else a new one)
${STORAGE}
  --config <file> without --storage or DIDVAULT_STORAGE: the storage, previousMasterKeyFiles and hsm section of
                  this file. With hsm.masterKey: true (servers on the HSM), --new-key-file is refused (use --to-file)
${PREVIOUS_KEY_FILE}

${ENVIRONMENT}`,

  audit: `usage: didvault audit verify [--tenant <id>] [--storage <s> | --config <file>]

  walks every audit chain (or the tenant's; @system for the acts of no tenant), recomputes each
  record's hash and checks seq and prevHash links; prints each chain's count (exit 0), or the
  first break: tenant, seq and what is wrong (exit 1). Records committed but not chained yet
  are reported as lag, not as a break. Opens the storage read-only (a read-only backup too) and
  needs no master key. An unknown --tenant is an error (exit 1).

${STORAGE}`,
}
