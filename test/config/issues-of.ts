/** The issue lines of a config value the schema must refuse (relative paths against `dir`). */
import { expect } from 'vitest'
import { ConfigError, parseConfig } from '../../src/config/load.js'

export function configIssuesOf(value: unknown, dir: string): string[] {
  try {
    parseConfig(value, 'x.json', dir)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as ConfigError).issues
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`)
}
