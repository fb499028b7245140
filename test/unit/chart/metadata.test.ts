// What people see of a release before they install it: the chart's README with its values
// table, its Artifact Hub annotations, the LICENSE and the CHANGELOG — each kept in step with
// the code it describes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { GROUP, VERSION, kinds } from '../../../crds/index.ts';
import { SLIPWAY_VERSION } from '../../../lib/version.ts';
import { CHART_README, readmeWithTable, valueRows } from '../../../scripts/helm/values-table.ts';

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');
const chart = parse(read('charts/slipway/Chart.yaml')) as {
  version: string;
  appVersion: string;
  annotations: Record<string, string>;
};

describe('the chart as Artifact Hub and helm show it', () => {
  it("README's values table is the one values.schema.json and values.yaml give, every value described", () => {
    const readme = readFileSync(CHART_README, 'utf8');
    expect(readme).toBe(readmeWithTable(readme));
    const rows = valueRows(
      JSON.parse(read('charts/slipway/values.schema.json')) as object,
      parse(read('charts/slipway/values.yaml')),
    );
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.filter((r) => r.description === '').map((r) => r.key)).toEqual([]);
    expect(rows.find((r) => r.key === 'operator.buildNetworkPolicy.internet')).toMatchObject({
      type: 'boolean',
      default: 'true',
    });
  });

  it('annotations name every CRD as crds/ defines it, the license of package.json, and the image of appVersion', () => {
    const crds = parse(chart.annotations['artifacthub.io/crds']!) as unknown[];
    expect(crds).toEqual(
      kinds.map((k) => ({
        kind: k.kind,
        version: VERSION,
        name: `${k.plural}.${GROUP}`,
        displayName: k.kind,
        description: k.description,
      })),
    );
    const license = (JSON.parse(read('package.json')) as { license: string }).license;
    expect(chart.annotations['artifacthub.io/license']).toBe(license);
    expect(parse(chart.annotations['artifacthub.io/images']!)).toEqual([
      { name: 'slipway', image: `slipway:${chart.appVersion}` },
    ]);
  });

  it('LICENSE is the Apache License 2.0 text, and CHANGELOG opens with this chart and app version', () => {
    expect(read('LICENSE')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    const versions = [...read('CHANGELOG.md').matchAll(/^## (\S+) \(chart (\S+)\)/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(versions[0]).toEqual([SLIPWAY_VERSION, chart.version]);
    // Newest first: each chart version below is older than the one above it.
    const parts = versions.map(([, c]) => c!.split('.').map(Number));
    const newer = (a: number[], b: number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
    for (let i = 1; i < parts.length; i++) expect(newer(parts[i - 1]!, parts[i]!)).toBeGreaterThan(0);
  });
});
