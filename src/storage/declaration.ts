/**
 * Typed collection declarations: a {@link CollectionSpec} bound to its record type, so the
 * compiler checks that every declared field, array field, index field and secret field is a
 * field of the record — of the right kind: scalar fields and indexes name scalar-valued fields,
 * array fields name arrays of scalars — and every access through the declaration is typed by
 * the record. Domains declare their own collections; storage knows only this generic shape.
 */
import type { Collection, CollectionSpec, Scalar, StorageAdapter, StoredRecord } from './port.js'
import { TenantCollection, type TenantRecord } from './tenant-scope.js'

/** `T` without its index signature (a record's named fields only). */
type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] }

/** The named fields of `T` holding a scalar (or nothing): what `fields` and indexes may name. */
export type ScalarField<T> = {
  [K in keyof Named<T> & string]-?: [Exclude<Named<T>[K], undefined>] extends [Scalar] ? K : never
}[keyof Named<T> & string]

/** The named fields of `T` holding an array of scalars: what `arrayFields` may name. */
export type ArrayField<T> = {
  [K in keyof Named<T> & string]-?: [Exclude<Named<T>[K], undefined>] extends [readonly Scalar[]] ? K : never
}[keyof Named<T> & string]

/** A collection spec whose names are checked against the record type `T`. */
export interface CollectionDeclaration<T extends StoredRecord> extends CollectionSpec {
  readonly name: string
  readonly fields: Array<ScalarField<T>>
  readonly arrayFields?: Array<ArrayField<T>>
  readonly indexes: Array<{ fields: Array<ScalarField<T>>; unique?: boolean }>
  readonly secretFields?: Array<keyof Named<T> & string>
  /** Never set: carries the record type. */
  readonly record?: T
}

/**
 * Declares the collection of records `T`:
 * `export const WALLETS = declareCollection<WalletRecord>({ name: 'wallets', fields: [...], indexes: [...] })`.
 * A field that is not a scalar field of `T` (or an array field that is not an array of
 * scalars) does not compile.
 */
export function declareCollection<T extends StoredRecord>(declaration: Omit<CollectionDeclaration<T>, 'record'>): CollectionDeclaration<T> {
  return declaration
}

/** The collection a declaration names, on `storage` (a database or a transaction), typed by its record. */
export function collectionOf<T extends StoredRecord>(storage: StorageAdapter, declaration: CollectionDeclaration<T>): Collection<T> {
  return storage.collection<T>(declaration.name)
}

/** The collection a declaration names, seen through one tenant (see {@link TenantCollection}). */
export function tenantCollectionOf<T extends TenantRecord>(
  storage: StorageAdapter,
  declaration: CollectionDeclaration<T>,
  tenantId: string,
): TenantCollection<T> {
  return new TenantCollection(collectionOf(storage, declaration), tenantId)
}

/** The record type a declaration holds. */
export type RecordOf<D> = D extends CollectionDeclaration<infer T> ? T : never

/**
 * One tenant's view of several declared collections, by the names given:
 * `const { wallets, vaults } = tenantCollections(storage, tenantId, { wallets: WALLETS, vaults: VAULTS })`.
 * A caller names exactly the collections it reaches.
 */
export function tenantCollections<D extends Record<string, CollectionDeclaration<TenantRecord>>>(
  storage: StorageAdapter,
  tenantId: string,
  declarations: D,
): { [K in keyof D]: TenantCollection<RecordOf<D[K]> & TenantRecord> } {
  const out: Record<string, TenantCollection<TenantRecord>> = {}
  for (const [name, declaration] of Object.entries(declarations)) out[name] = tenantCollectionOf(storage, declaration, tenantId)
  return out as { [K in keyof D]: TenantCollection<RecordOf<D[K]> & TenantRecord> }
}
