/** The fields a collection declares: every query an adapter runs is validated against them. */
import type { CollectionSpec } from './port.js'

export class DeclaredFields {
  readonly fields: ReadonlySet<string>
  readonly arrayFields: ReadonlySet<string>
  /** `createdAt` when declared, else `id`. */
  readonly defaultOrderField: string

  /** `validateName` vets each field name (adapters with naming rules pass theirs). */
  constructor(
    readonly spec: CollectionSpec,
    validateName?: (field: string) => void,
  ) {
    this.fields = new Set(spec.fields)
    this.arrayFields = new Set(spec.arrayFields ?? [])
    if (validateName) for (const field of [...this.fields, ...this.arrayFields]) validateName(field)
    for (const index of spec.indexes) for (const field of index.fields) this.scalar(field)
    this.defaultOrderField = this.fields.has('createdAt') ? 'createdAt' : 'id'
  }

  /** `field` if it is a declared scalar field; throws otherwise. */
  scalar(field: string): string {
    if (!this.fields.has(field)) {
      throw new Error(`unknown field "${field}" in collection "${this.spec.name}" (declared fields: ${[...this.fields].join(', ')})`)
    }
    return field
  }

  /** `field` if it is a declared array field; throws otherwise. */
  array(field: string): string {
    if (!this.arrayFields.has(field)) throw new Error(`field "${field}" of collection "${this.spec.name}" is not a declared array field`)
    return field
  }

  /** `field` if it is declared at all. */
  any(field: string): string {
    return this.arrayFields.has(field) ? field : this.scalar(field)
  }
}
