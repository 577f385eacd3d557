/**
 * Named (prepared) statements: a statement sent with a name is parsed once per connection, and
 * after a few executions PostgreSQL may keep one generic plan for it, so a hot query skips
 * parsing and planning — on short indexed queries that is most of the server's work.
 */
import { createHash } from 'node:crypto'
import type { QueryConfig } from 'pg'

/**
 * Distinct statement texts given names per adapter: each connection holds at most this many
 * prepared statements; texts beyond it are sent unnamed. The service's queries are a few
 * hundred shapes at most (values are always bound; only a page's LIMIT is written in).
 */
export const MAX_NAMED_STATEMENTS = 256

/** Names statement texts, up to {@link MAX_NAMED_STATEMENTS} per instance (first come). */
export class StatementNames {
  private readonly names = new Map<string, string>()

  constructor(private readonly enabled: boolean) {}

  /** The statement to send for `sql` and `values`: named when enabled and within the bound. */
  statement(sql: string, values: unknown[] | undefined): QueryConfig {
    let name = this.names.get(sql)
    if (name === undefined && this.enabled && this.names.size < MAX_NAMED_STATEMENTS) {
      name = `dv_${createHash('sha256').update(sql).digest('hex').slice(0, 40)}`
      this.names.set(sql, name)
    }
    return name === undefined ? { text: sql, values } : { name, text: sql, values }
  }
}
