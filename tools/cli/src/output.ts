/** How a command prints what it got: an aligned table for people, JSON for scripts. */
export type OutputFormat = 'table' | 'json';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json'];

/** A table column: its header and how a row shows in it. */
export interface Column<T> {
  readonly header: string;
  readonly value: (row: T) => unknown;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Columns padded to their widest cell; the last column is not padded. */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = [
    columns.map((c) => c.header),
    ...rows.map((row) => columns.map((c) => cell(c.value(row)).replace(/\s*\n\s*/g, ' '))),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  return (
    cells
      .map((line) =>
        line
          .map((text, i) => (i === line.length - 1 ? text : text.padEnd(widths[i])))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** Prints `data` as JSON, or `rows` as a table. */
export function print<T>(format: OutputFormat, data: unknown, rows: readonly T[], columns: readonly Column<T>[]): void {
  process.stdout.write(format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : renderTable(rows, columns));
}
