// What a suite hands back, and how it is printed: one aligned text table per measurement.

export type Cell = string | number;

export interface Table {
  title: string;
  columns: string[];
  rows: Cell[][];
}

/** One performance target (issue #13) and what this run measured for it. */
export interface Target {
  /** What is measured, e.g. "status API /api/v1/status c=32: req/s ÷ ceiling". */
  name: string;
  value: number;
  /** `>=` or `<=` the limit. */
  atLeast?: number;
  atMost?: number;
}

export const met = (t: Target): boolean =>
  (t.atLeast === undefined || t.value >= t.atLeast) && (t.atMost === undefined || t.value <= t.atMost);

export function targetsTable(targets: ReadonlyArray<Target & { suite: string }>): Table {
  return {
    title: 'Targets (issue #13): each figure measured in this run',
    columns: ['suite', 'figure', 'measured', 'target', ''],
    rows: targets.map((t) => [
      t.suite,
      t.name,
      t.value,
      t.atLeast !== undefined ? `>= ${t.atLeast}` : `<= ${t.atMost}`,
      met(t) ? 'met' : 'MISSED',
    ]),
  };
}

export interface SuiteResult {
  tables: Table[];
  /** The targets this suite measures. */
  targets?: Target[];
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
