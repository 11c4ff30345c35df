// Plain-text tables and label/value blocks for terminal output. Pure.

export interface Column {
  readonly header: string;
  /** Numbers read best right-aligned. @default 'left' */
  readonly align?: 'left' | 'right';
}

/** Columns separated by two spaces, padded to the widest cell; trailing blanks trimmed. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? '';
        const width = widths[index] ?? 0;
        return column.align === 'right' ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...rows.map(line)].join('\n');
}

/** `label  value` lines with the values aligned. */
export function renderFields(fields: readonly (readonly [label: string, value: string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${value}`.trimEnd()).join('\n');
}
