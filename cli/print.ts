// Printing as kubectl does: aligned columns with upper-case headers, ages like "5m" and "3d",
// or the objects as JSON or YAML (-o json|yaml) for scripts.
import { stringify } from 'yaml';
import { escapeControlCharacters } from '../rules/text.ts';
import type { CliContext } from './context.ts';

export interface Column<T> {
  header: string;
  value: (item: T) => string;
  /** Shown only with -o wide. */
  wide?: boolean;
}

export function table<T>(items: readonly T[], columns: readonly Column<T>[], wide: boolean): string {
  const shown = columns.filter((c) => wide || !c.wide);
  // A cell may hold text from outside (a commit message): never raw terminal controls.
  const rows = [
    shown.map((c) => c.header),
    ...items.map((item) => shown.map((c) => escapeControlCharacters(c.value(item)))),
  ];
  const widths = shown.map((_, i) => Math.max(...rows.map((r) => [...r[i]!].length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}

/** A list as the chosen output: the table, or `{items}` as JSON or YAML. */
export function printList<T>(
  ctx: CliContext,
  items: readonly T[],
  columns: readonly Column<T>[],
  empty: string,
) {
  if (ctx.output === 'json') return ctx.out(JSON.stringify({ items }, null, 2));
  if (ctx.output === 'yaml') return ctx.out(stringify({ items }).trimEnd());
  if (items.length === 0) return ctx.err(empty);
  ctx.out(table(items, columns, ctx.output === 'wide'));
}

/** One object (or answer) as JSON or YAML; undefined when the table output was asked for. */
export function printObject(ctx: CliContext, value: unknown): boolean {
  if (ctx.output === 'json') ctx.out(JSON.stringify(value, null, 2));
  else if (ctx.output === 'yaml') ctx.out(stringify(value).trimEnd());
  else return false;
  return true;
}

/** kubectl's age: 45s, 12m, 5h, 3d, 2y. */
export function age(time: string | Date | undefined, now = Date.now()): string {
  if (time === undefined) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - new Date(time).getTime()) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 120 * 60) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)}h`;
  if (seconds < 730 * 86400) return `${Math.floor(seconds / 86400)}d`;
  return `${Math.floor(seconds / (365 * 86400))}y`;
}
