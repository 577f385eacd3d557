/** The PostgreSQL adapter's statement naming: bounded, stable per text, and off on request. */
import { describe, expect, it } from 'vitest'
import { MAX_NAMED_STATEMENTS, StatementNames } from '../../src/storage/postgres/statements.js'

describe('PostgreSQL named statements', () => {
  it('names each text once, the same name for the same text, up to the bound; the rest go unnamed', () => {
    const names = new StatementNames(true)
    const first = names.statement('SELECT 1', [])
    expect(first.name).toMatch(/^dv_[0-9a-f]{40}$/)
    expect(names.statement('SELECT 1', [2]).name).toBe(first.name)
    for (let i = 1; i < MAX_NAMED_STATEMENTS; i++) expect(names.statement(`SELECT ${i + 1}`, []).name).toBeDefined()
    expect(names.statement('SELECT -1', [])).toEqual({ text: 'SELECT -1', values: [] })
    expect(names.statement('SELECT 1', []).name).toBe(first.name)
  })

  it('sends every statement unnamed when turned off', () => {
    expect(new StatementNames(false).statement('SELECT 1', [1])).toEqual({ text: 'SELECT 1', values: [1] })
  })
})
