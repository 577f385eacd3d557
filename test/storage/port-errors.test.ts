/**
 * The port's errors are recognised by `instanceof` across copies of the port module: a program
 * loads two when an adapter throws the core's (`didvault`) and `didvault/testing`, which bundles
 * its own, checks it. Here a second copy is the same source loaded again as another module.
 */
import { describe, expect, it } from 'vitest'
import type * as Port from '../../src/storage/port.js'
import { InvalidCursorError, UniqueConstraintError } from '../../src/storage/port.js'

/** The same file under another module id (a query string), so a second module instance. */
const anotherCopy = '../../src/storage/port.js?another-copy'
const copy = (await import(/* @vite-ignore */ anotherCopy)) as typeof Port

describe('the port’s errors across copies of the port', () => {
  it('are two distinct classes here (the check below is not vacuous)', () => {
    expect(copy.UniqueConstraintError).not.toBe(UniqueConstraintError)
    expect(copy.InvalidCursorError).not.toBe(InvalidCursorError)
  })

  it('an error of one copy is an instance of the other’s class, and only of its own kind', () => {
    expect(new copy.UniqueConstraintError('wallets', ['did'])).toBeInstanceOf(UniqueConstraintError)
    expect(new UniqueConstraintError('wallets', ['did'])).toBeInstanceOf(copy.UniqueConstraintError)
    expect(new copy.InvalidCursorError()).toBeInstanceOf(InvalidCursorError)
    expect(new copy.InvalidCursorError()).not.toBeInstanceOf(UniqueConstraintError)
    expect(new Error('unique constraint on wallets(did)')).not.toBeInstanceOf(UniqueConstraintError)
    expect({ name: 'UniqueConstraintError' }).not.toBeInstanceOf(UniqueConstraintError)
  })

  it('a subclass keeps the ordinary check', () => {
    class Narrower extends UniqueConstraintError {}
    expect(new Narrower('wallets', ['did'])).toBeInstanceOf(UniqueConstraintError)
    expect(new UniqueConstraintError('wallets', ['did'])).not.toBeInstanceOf(Narrower)
  })
})
