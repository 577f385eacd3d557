/**
 * A MongoDB stand-in for tests: a TCP server speaking the MongoDB wire protocol (OP_MSG, and
 * OP_QUERY/OP_REPLY for the driver's first handshake) to the official driver, answering the
 * commands the didvault adapter sends. Documents live in memory; queries, sorts, updates and
 * aggregations are evaluated by mingo. Unique indexes (with partialFilterExpression) are
 * enforced, with MongoDB's duplicate-key error (11000). Not a database: every query is a scan;
 * `explain` of a find answers with the plan a model of MongoDB's index eligibility picks over the
 * indexes the stand-in holds (test/helpers/mongo-wire-planner.ts).
 *
 * By default it presents itself as a standalone server (no transactions). With
 * `{ replicaSet: true }` it answers `hello` as the primary of a one-member replica set and runs
 * multi-document transactions (`startTransaction` / `commitTransaction` / `abortTransaction`):
 * one at a time, journaled and undone on abort; a second session starting a transaction while
 * one is open gets a `WriteConflict` labelled `TransientTransactionError` (the driver retries
 * it), and commands outside the transaction wait until it ends, so they never see its
 * uncommitted writes. A transaction left open for 10 s is aborted.
 */
import { once } from 'node:events'
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { aggregate, find, Query, update as applyModifier } from 'mingo'
import { BSON, Long } from 'mongodb'
import { modelWinningPlan } from './mongo-wire-planner.js'

type Doc = Record<string, any>

const OP_REPLY = 1
const OP_QUERY = 2004
const OP_MSG = 2013

interface IndexSpec {
  name: string
  key: Record<string, number>
  unique?: boolean
  partialFilterExpression?: Doc
}

class ServerError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
  ) {
    super(message)
  }
}

const idKey = (id: unknown): string => (typeof id === 'string' ? `s:${id}` : `j:${JSON.stringify(id)}`)

/** One undoable change: the previous document of `id` in `store` (undefined: it did not exist). */
interface UndoEntry {
  store: Store
  id: string
  previous: Doc | undefined
}

/** The journal of the transaction whose command is executing, if any (commands execute synchronously). */
let journal: UndoEntry[] | undefined

/** Commands that never wait for a transaction (handshake, monitoring, session bookkeeping). */
const CONTROL_COMMANDS = new Set(['hello', 'ismaster', 'ping', 'buildinfo', 'endsessions', 'killcursors'])

/** How long a transaction may stay open before the server aborts it. */
const TRANSACTION_LIFETIME_MS = 10_000

/** One collection: documents by `_id`, indexes, and the keys of its unique indexes. */
class Store {
  readonly docs = new Map<string, Doc>()
  readonly indexes: IndexSpec[] = [{ name: '_id_', key: { _id: 1 } }]
  private readonly uniqueKeys = new Map<string, Map<string, string>>()

  constructor(readonly ns: string) {}

  private uniqueKey(index: IndexSpec, doc: Doc): string | undefined {
    if (index.partialFilterExpression && !new Query(index.partialFilterExpression).test(doc)) return undefined
    return JSON.stringify(Object.keys(index.key).map((field) => doc[field] ?? null))
  }

  private uniques(): IndexSpec[] {
    return this.indexes.filter((index) => index.unique)
  }

  /** Throws 11000 when `doc` would duplicate another document's `_id` or unique key. */
  check(doc: Doc, replacing: string | undefined): void {
    const id = idKey(doc._id)
    if (id !== replacing && this.docs.has(id)) throw this.duplicate('_id_', { _id: doc._id })
    for (const index of this.uniques()) {
      const key = this.uniqueKey(index, doc)
      const owner = key === undefined ? undefined : this.uniqueKeys.get(index.name)?.get(key)
      if (owner !== undefined && owner !== (replacing ?? id)) throw this.duplicate(index.name, index.key)
    }
  }

  private duplicate(name: string, keyPattern: Doc): ServerError {
    const err = new ServerError(11000, 'DuplicateKey', `E11000 duplicate key error collection: ${this.ns} index: ${name} dup key: { ... }`)
    Object.assign(err, { keyPattern })
    return err
  }

  put(doc: Doc, replacing?: string): void {
    this.check(doc, replacing)
    const id = idKey(doc._id)
    journal?.push({ store: this, id, previous: this.docs.get(id) })
    if (replacing !== undefined) this.unlink(replacing)
    this.link(id, doc)
  }

  remove(id: string): void {
    if (!this.docs.has(id)) return
    journal?.push({ store: this, id, previous: this.docs.get(id) })
    this.unlink(id)
  }

  /** Restores `id` to `previous` (undefined: absent), bypassing the journal. */
  restore(id: string, previous: Doc | undefined): void {
    this.unlink(id)
    if (previous !== undefined) this.link(id, previous)
  }

  private link(id: string, doc: Doc): void {
    this.docs.set(id, doc)
    for (const index of this.uniques()) {
      const key = this.uniqueKey(index, doc)
      if (key !== undefined) this.uniqueKeys.get(index.name)!.set(key, id)
    }
  }

  private unlink(id: string): void {
    const doc = this.docs.get(id)
    if (doc === undefined) return
    for (const index of this.uniques()) {
      const key = this.uniqueKey(index, doc)
      if (key !== undefined && this.uniqueKeys.get(index.name)!.get(key) === id) this.uniqueKeys.get(index.name)!.delete(key)
    }
    this.docs.delete(id)
  }

  addIndex(spec: IndexSpec): void {
    const existing = this.indexes.find((index) => index.name === spec.name)
    if (existing) {
      if (JSON.stringify(existing) !== JSON.stringify(spec))
        throw new ServerError(85, 'IndexOptionsConflict', `index ${spec.name} exists with different options`)
      return
    }
    if (spec.unique) {
      const keys = new Map<string, string>()
      for (const [id, doc] of this.docs) {
        const key = this.uniqueKey(spec, doc)
        if (key === undefined) continue
        if (keys.has(key)) throw this.duplicate(spec.name, spec.key)
        keys.set(key, id)
      }
      this.uniqueKeys.set(spec.name, keys)
    }
    this.indexes.push(spec)
  }

  matching(filter: Doc = {}, sort?: Doc): Doc[] {
    const cursor = find([...this.docs.values()], filter)
    return (sort && Object.keys(sort).length > 0 ? cursor.sort(sort) : cursor).all()
  }
}

/** The stand-in server. {@link start} listens on an ephemeral loopback port. */
export class MongoWireServer {
  private readonly stores = new Map<string, Store>()
  private readonly sockets = new Set<Socket>()
  private server: Server | undefined
  private connections = 0
  private address = ''
  private transaction: { key: string; undo: UndoEntry[]; started: number; ended: Promise<void>; end: () => void } | undefined
  private readonly committed = new Set<string>()

  constructor(private readonly options: { replicaSet?: boolean } = {}) {}

  /** `mongodb://127.0.0.1:<port>`. */
  url = ''

  async start(): Promise<this> {
    this.server = createServer((socket) => this.accept(socket))
    this.server.listen(0, '127.0.0.1')
    await once(this.server, 'listening')
    this.address = `127.0.0.1:${(this.server.address() as AddressInfo).port}`
    this.url = `mongodb://${this.address}`
    return this
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()))
  }

  private accept(socket: Socket): void {
    const connectionId = ++this.connections
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => socket.destroy())
    let buffered = Buffer.alloc(0)
    // Replies go out in request order, even when a command waits for a transaction to end.
    let replies = Promise.resolve()
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      while (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
        const message = buffered.subarray(0, buffered.readInt32LE(0))
        buffered = buffered.subarray(message.length)
        replies = replies.then(async () => {
          const reply = await this.handle(message, connectionId)
          if (!socket.destroyed) socket.write(reply)
        })
      }
    })
  }

  private async handle(message: Buffer, connectionId: number): Promise<Buffer> {
    const requestId = message.readInt32LE(4)
    const opCode = message.readInt32LE(12)
    if (opCode === OP_QUERY) {
      // flags, fullCollectionName (cstring), numberToSkip, numberToReturn, query
      const nameEnd = message.indexOf(0, 20)
      const query = BSON.deserialize(message.subarray(nameEnd + 9))
      return reply(
        OP_REPLY,
        requestId,
        Buffer.concat([int32(0), Buffer.alloc(8), int32(0), int32(1), BSON.serialize(await this.run(query, connectionId))]),
      )
    }
    if (opCode !== OP_MSG) throw new Error(`unsupported opCode ${opCode}`)
    const command: Doc = {}
    for (let offset = 20; offset < message.length;) {
      const kind = message[offset]
      if (kind === 0) {
        const size = message.readInt32LE(offset + 1)
        Object.assign(command, BSON.deserialize(message.subarray(offset + 1, offset + 1 + size)))
        offset += 1 + size
      } else {
        const size = message.readInt32LE(offset + 1)
        const end = offset + 1 + size
        const nameEnd = message.indexOf(0, offset + 5)
        const docs: Doc[] = []
        for (let at = nameEnd + 1; at < end; at += message.readInt32LE(at))
          docs.push(BSON.deserialize(message.subarray(at, at + message.readInt32LE(at))))
        command[message.toString('utf8', offset + 5, nameEnd)] = docs
        offset = end
      }
    }
    return reply(OP_MSG, requestId, Buffer.concat([int32(0), Buffer.from([0]), BSON.serialize(await this.run(command, connectionId))]))
  }

  private store(db: string, name: string, create = true): Store {
    const ns = `${db}.${name}`
    let store = this.stores.get(ns)
    if (store === undefined) {
      store = new Store(ns)
      if (create) this.stores.set(ns, store)
    }
    return store
  }

  /** The transaction a command belongs to (`lsid` + `txnNumber`), if it is part of one. */
  private transactionKey(command: Doc): string | undefined {
    if (command.autocommit !== false || command.lsid === undefined) return undefined
    return `${Buffer.from((command.lsid.id as { buffer: Uint8Array }).buffer).toString('hex')}:${String(command.txnNumber)}`
  }

  private endTransaction(commit: boolean): void {
    const transaction = this.transaction!
    this.transaction = undefined
    if (commit) this.committed.add(transaction.key)
    else for (const entry of transaction.undo.reverse()) entry.store.restore(entry.id, entry.previous)
    transaction.end()
  }

  private async run(command: Doc, connectionId: number): Promise<Doc> {
    if (this.transaction && Date.now() - this.transaction.started > TRANSACTION_LIFETIME_MS) this.endTransaction(false)
    const key = this.transactionKey(command)
    const name = Object.keys(command)[0]
    if (name === 'commitTransaction' || name === 'abortTransaction') {
      if (this.transaction?.key === key) this.endTransaction(name === 'commitTransaction')
      else if (name === 'commitTransaction' && !this.committed.has(key!))
        return {
          ok: 0,
          code: 251,
          codeName: 'NoSuchTransaction',
          errmsg: 'no such transaction',
          errorLabels: ['TransientTransactionError'],
        }
      return { ok: 1 }
    }
    if (key === undefined) {
      if (!CONTROL_COMMANDS.has(name.toLowerCase())) while (this.transaction) await this.transaction.ended
    } else if (this.transaction?.key !== key) {
      if (this.transaction !== undefined || !command.startTransaction) {
        return {
          ok: 0,
          code: 112,
          codeName: 'WriteConflict',
          errmsg: 'another transaction is in progress',
          errorLabels: ['TransientTransactionError'],
        }
      }
      let end!: () => void
      const ended = new Promise<void>((resolve) => (end = resolve))
      this.transaction = { key, undo: [], started: Date.now(), ended, end }
    }
    journal = key === undefined ? undefined : this.transaction!.undo
    try {
      return { ...this.execute(command, connectionId), ok: 1 }
    } catch (err) {
      if (err instanceof ServerError)
        return {
          ok: 0,
          code: err.code,
          codeName: err.codeName,
          errmsg: err.message,
          ...((err as Doc).keyPattern && { keyPattern: (err as Doc).keyPattern }),
        }
      return { ok: 0, code: 1, codeName: 'InternalError', errmsg: err instanceof Error ? err.message : String(err) }
    } finally {
      journal = undefined
    }
  }

  private execute(command: Doc, connectionId: number): Doc {
    const name = Object.keys(command)[0]
    const db = (command.$db as string | undefined) ?? 'admin'
    switch (name.toLowerCase()) {
      case 'hello':
      case 'ismaster':
        return {
          ismaster: true,
          isWritablePrimary: true,
          helloOk: true,
          maxBsonObjectSize: 16 * 1024 * 1024,
          maxMessageSizeBytes: 48_000_000,
          maxWriteBatchSize: 100_000,
          localTime: new Date(),
          logicalSessionTimeoutMinutes: 30,
          connectionId,
          minWireVersion: 0,
          maxWireVersion: 21,
          readOnly: false,
          ...(this.options.replicaSet && { setName: 'rs0', setVersion: 1, hosts: [this.address], primary: this.address, me: this.address }),
        }
      case 'ping':
      case 'endsessions':
      case 'killcursors':
        return {}
      case 'buildinfo':
        return { version: '7.0.0-standin', versionArray: [7, 0, 0, 0] }
      case 'create': {
        if (this.stores.has(`${db}.${command.create}`))
          throw new ServerError(48, 'NamespaceExists', `Collection ${db}.${command.create} already exists.`)
        this.store(db, command.create)
        return {}
      }
      case 'drop':
        this.stores.delete(`${db}.${command.drop}`)
        return {}
      case 'dropdatabase':
        for (const ns of [...this.stores.keys()]) if (ns.startsWith(`${db}.`)) this.stores.delete(ns)
        return {}
      case 'createindexes': {
        const store = this.store(db, command.createIndexes)
        const before = store.indexes.length
        for (const spec of command.indexes as IndexSpec[])
          store.addIndex({
            name: spec.name,
            key: spec.key,
            ...(spec.unique && { unique: true }),
            ...(spec.partialFilterExpression && { partialFilterExpression: spec.partialFilterExpression }),
          })
        return { numIndexesBefore: before, numIndexesAfter: store.indexes.length }
      }
      case 'dropindexes': {
        const store = this.store(db, command.dropIndexes, false)
        const at = store.indexes.findIndex((index) => index.name === command.index)
        if (at < 0 || command.index === '_id_')
          throw new ServerError(27, 'IndexNotFound', `index not found with name [${String(command.index)}]`)
        const before = store.indexes.length
        store.indexes.splice(at, 1)
        return { nIndexesWas: before }
      }
      case 'listindexes':
        return cursorReply(
          `${db}.${command.listIndexes}`,
          this.store(db, command.listIndexes, false).indexes.map((index) => ({ v: 2, ...index })),
        )
      case 'insert': {
        const store = this.store(db, command.insert)
        const writeErrors: Doc[] = []
        let n = 0
        ;(command.documents as Doc[]).forEach((doc, index) => {
          if (writeErrors.length > 0 && command.ordered !== false) return
          try {
            store.put(structuredClone(doc))
            n++
          } catch (err) {
            writeErrors.push(writeError(err, index))
          }
        })
        return { n, ...(writeErrors.length > 0 && { writeErrors }) }
      }
      case 'find': {
        let docs = this.store(db, command.find, false).matching(command.filter, command.sort)
        if (command.skip) docs = docs.slice(command.skip)
        if (command.limit) docs = docs.slice(0, Math.abs(command.limit))
        return cursorReply(`${db}.${command.find}`, docs)
      }
      case 'explain': {
        // Only finds are explained (what the adapter's explain sends), by a model of MongoDB's planner.
        const find = command.explain as Doc
        if (find.find === undefined) throw new ServerError(59, 'CommandNotFound', 'the test stand-in explains find commands only')
        const store = this.store(db, find.find, false)
        const winningPlan = modelWinningPlan(store.indexes, find.filter, find.sort)
        const queryPlanner = { namespace: store.ns, parsedQuery: find.filter ?? {}, winningPlan, rejectedPlans: [] }
        return { explainVersion: '1', queryPlanner }
      }
      case 'aggregate':
        return cursorReply(
          `${db}.${command.aggregate}`,
          aggregate([...this.store(db, command.aggregate, false).docs.values()], command.pipeline),
        )
      case 'count':
        return { n: this.store(db, command.count, false).matching(command.query).length }
      case 'update': {
        const store = this.store(db, command.update)
        let n = 0
        let nModified = 0
        const writeErrors: Doc[] = []
        ;(command.updates as Doc[]).forEach((spec, index) => {
          try {
            const targets = store.matching(spec.q)
            for (const target of spec.multi ? targets : targets.slice(0, 1)) {
              store.put(modified(target, spec.u), idKey(target._id))
              n++
              nModified++
            }
          } catch (err) {
            writeErrors.push(writeError(err, index))
          }
        })
        return { n, nModified, ...(writeErrors.length > 0 && { writeErrors }) }
      }
      case 'delete': {
        const store = this.store(db, command.delete)
        let n = 0
        for (const spec of command.deletes as Doc[]) {
          const targets = store.matching(spec.q)
          for (const target of spec.limit === 1 ? targets.slice(0, 1) : targets) {
            store.remove(idKey(target._id))
            n++
          }
        }
        return { n }
      }
      case 'findandmodify': {
        const store = this.store(db, command.findAndModify)
        const [target] = store.matching(command.query, command.sort)
        if (target === undefined) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null }
        if (command.remove) {
          store.remove(idKey(target._id))
          return { lastErrorObject: { n: 1 }, value: target }
        }
        const next = modified(target, command.update)
        store.put(next, idKey(target._id))
        return { lastErrorObject: { n: 1, updatedExisting: true }, value: command.new ? next : target }
      }
      default:
        throw new ServerError(
          59,
          'CommandNotFound',
          `no such command: '${name}' (the test stand-in implements only what the didvault adapter sends)`,
        )
    }
  }
}

/** `target` after an update document (operators) or replacement. */
function modified(target: Doc, update: Doc): Doc {
  if (!Object.keys(update).some((key) => key.startsWith('$'))) return { ...structuredClone(update), _id: target._id }
  const next = structuredClone(target)
  applyModifier(next, update as never)
  return next
}

function writeError(err: unknown, index: number): Doc {
  if (err instanceof ServerError) return { index, code: err.code, errmsg: err.message, keyPattern: (err as Doc).keyPattern }
  return { index, code: 1, errmsg: String(err) }
}

function cursorReply(ns: string, docs: Doc[]): Doc {
  return { cursor: { id: Long.fromNumber(0), ns, firstBatch: docs } }
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4)
  buffer.writeInt32LE(value)
  return buffer
}

let nextResponseId = 1

function reply(opCode: number, responseTo: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16)
  header.writeInt32LE(16 + body.length, 0)
  header.writeInt32LE(nextResponseId++, 4)
  header.writeInt32LE(responseTo, 8)
  header.writeInt32LE(opCode, 12)
  return Buffer.concat([header, body])
}
