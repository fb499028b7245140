// What a suite hands back, and how it is printed: one aligned text table per measurement.

export type Cell = string | number;

export interface Table {
  title: string;
  columns: string[];
  rows: Cell[][];
}

export interface SuiteResult {
  tables: Table[];
  /** Written to latest.json under the suite's name. */
  data: Record<string, unknown>;
  /** Caveats worth reading next to the numbers. */
  notes?: string[];
}

export function formatCell(value: Cell): string {
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return '-';
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function renderTable(table: Table): string {
  const cells = table.rows.map((row) => row.map(formatCell));
  const widths = table.columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]?.length ?? 0)));
  // Label columns (only text in them) are left-aligned, the others right-aligned.
  const text = table.columns.map((_, i) => table.rows.every((row) => typeof row[i] !== 'number'));
  const line = (row: string[]) =>
    row.map((cell, i) => (text[i] ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [
    `  ${table.title}`,
    `  ${line(table.columns)}`,
    `  ${rule}`,
    ...cells.map((r) => `  ${line(r).trimEnd()}`),
  ].join('\n');
}

export function renderSuite(name: string, result: SuiteResult, seconds: number): string {
  const parts = [`\n== ${name} (${seconds.toFixed(1)} s) ==`];
  for (const table of result.tables) parts.push(renderTable(table), '');
  for (const note of result.notes ?? []) parts.push(`  note: ${note}`);
  return parts.join('\n');
}
