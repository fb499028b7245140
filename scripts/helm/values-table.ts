// The chart README's table of values, generated from values.schema.json (each value's type and
// description) and values.yaml (its default), so the README cannot drift from the chart: a unit
// test compares them (test/unit/chart/metadata.test.ts).
//   node scripts/helm/values-table.ts [--check]   # writes charts/slipway/README.md's table
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const CHART = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'charts', 'slipway');
export const CHART_README = join(CHART, 'README.md');
const START = '<!-- values:start (node scripts/helm/values-table.ts) -->';
const END = '<!-- values:end -->';

interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
}
interface Schema extends SchemaNode {
  definitions?: Record<string, SchemaNode>;
}

export interface ValueRow {
  key: string;
  type: string;
  default: string;
  description: string;
}

const resolve = (schema: Schema, node: SchemaNode): SchemaNode => {
  if (!node.$ref) return node;
  const target = schema.definitions?.[node.$ref.replace('#/definitions/', '')];
  if (!target) throw new Error(`values.schema.json: ${node.$ref} is not defined`);
  // The node's own description wins over its definition's.
  return { ...resolve(schema, target), ...(node.description ? { description: node.description } : {}) };
};

function typeOf(node: SchemaNode): string {
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  const alternatives = node.oneOf ?? node.anyOf;
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(' \\| ');
  const type = Array.isArray(node.type) ? node.type.join(' \\| ') : (node.type ?? 'any');
  return type === 'array' && node.items?.type ? `${String(node.items.type)}[]` : type;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** One row per value with no sub-values of its own, in the schema's order. */
export function valueRows(schema: Schema, values: unknown): ValueRow[] {
  const rows: ValueRow[] = [];
  const walk = (raw: SchemaNode, key: string, value: unknown) => {
    const node = resolve(schema, raw);
    if (node.properties && typeOf(node) === 'object') {
      for (const [name, child] of Object.entries(node.properties))
        walk(child, key ? `${key}.${name}` : name, (value as Record<string, unknown> | undefined)?.[name]);
      return;
    }
    rows.push({
      key,
      type: typeOf(node),
      default: value === undefined ? '' : JSON.stringify(value),
      description: node.description ?? '',
    });
  };
  walk(schema, '', values);
  return rows;
}

export function valuesTable(): string {
  const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as Schema;
  const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8')) as unknown;
  const lines = valueRows(schema, values).map(
    (r) =>
      `| \`${r.key}\` | ${r.type} | ${r.default === '' ? '' : `\`${cell(r.default)}\``} | ${cell(r.description)} |`,
  );
  return ['| value | type | default | description |', '|---|---|---|---|', ...lines].join('\n');
}

/** The README with its table as generated now. */
export function readmeWithTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CHART_README} has no ${START} … ${END} section`);
  return `${readme.slice(0, start + START.length)}\n${valuesTable()}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(CHART_README, 'utf8');
  const current = readmeWithTable(readme);
  if (process.argv.includes('--check')) {
    if (current !== readme) {
      console.error(
        'charts/slipway/README.md: the values table is stale; run node scripts/helm/values-table.ts',
      );
      process.exit(1);
    }
    console.log('Chart README is current.');
  } else {
    writeFileSync(CHART_README, current);
    console.log(`Wrote the values table of ${CHART_README}`);
  }
}
