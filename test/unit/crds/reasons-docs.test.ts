// Every kind's condition reasons are one typed list beside its schema (crds/), used by the
// controllers; docs/resources.md must list exactly those in the reason tables of the kind's
// section — no reason a user can meet left unexplained, and no documented reason that no longer exists.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { reasonsByKind } from '../../../crds/index.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const resources = readFileSync(join(root, 'docs', 'resources.md'), 'utf8');

/** The lines of the section whose heading is `heading`, up to the next heading of its level or above. */
function section(heading: string): string[] {
  const lines = resources.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`docs/resources.md has no heading "${heading}"`);
  const level = heading.indexOf(' ');
  const end = lines.findIndex((line, i) => i > start && /^#+ /.test(line) && line.indexOf(' ') <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** The `Reason` words in the "reason(s)" column of every table of the section. */
function documentedReasons(lines: string[]): string[] {
  const found = new Set<string>();
  let column = -1;
  for (const [i, line] of lines.entries()) {
    if (!line.startsWith('|')) {
      column = -1;
      continue;
    }
    if (column < 0 && lines[i + 1]?.startsWith('|---')) {
      column = cells(line).findIndex((c) => /^reasons?$/i.test(c.replaceAll('`', '')));
      if (column < 0) column = -2; // a table without a reason column
      continue;
    }
    if (column < 0 || line.startsWith('|---')) continue;
    for (const m of (cells(line)[column] ?? '').matchAll(/`([A-Z][A-Za-z]+)`/g)) found.add(m[1]!);
  }
  return [...found].sort();
}

const headings: Record<keyof typeof reasonsByKind, string> = {
  Project: '## Project',
  Environment: '## Environment',
  Webhook: '## Webhook',
  Bundle: '## Bundle',
  Preview: '## Preview',
  Promotion: '## Promotion',
  StatusPage: '### StatusPage',
  StatusComponent: '### StatusComponent',
  StatusNotice: '### StatusNotice',
};

describe('docs/resources.md lists every condition reason of each kind, and only those', () => {
  it.each(Object.entries(headings))('%s', (kind, heading) => {
    const typed = [...new Set<string>(reasonsByKind[kind as keyof typeof reasonsByKind])].sort();
    expect(documentedReasons(section(heading))).toEqual(typed);
  });
});
