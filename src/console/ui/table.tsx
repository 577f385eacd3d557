/** A plain data table: a caption, column headings and one row per item (rows may be selectable with a button). */
import type { ComponentChildren } from 'preact'

export interface Column<T> {
  title: string
  cell: (item: T) => ComponentChildren
}

export interface TableProps<T> {
  caption: string
  columns: Column<T>[]
  rows: readonly T[]
  /** A stable key of a row. */
  rowKey: (item: T) => string
  /** Shown in place of the rows when there are none. */
  empty?: string
}

/** The rows of `rows` under `columns`, or `empty` when there are none. */
export function Table<T>({ caption, columns, rows, rowKey, empty = 'Nothing to show.' }: TableProps<T>) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.title}>
              {c.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={columns.length} class="muted">
              {empty}
            </td>
          </tr>
        ) : (
          rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.title}>{c.cell(row)}</td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </table>
  )
}
