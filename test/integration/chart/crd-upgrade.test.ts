// The chart's CRDs are templates: `helm install` creates them, `helm upgrade` applies a changed
// schema (Helm never upgrades a chart's crds/ folder), and `helm uninstall` keeps them. Tried on
// a copy of the chart's CRD templates under a group of their own, so the test cluster's real
// Slipway CRDs, which the other tests use, are never touched.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { createNamespace, testKubeConfig, testState } from '../../support/cluster.ts';
import { CHART, HELM_BUILD_TIMEOUT_MS, helm } from '../../unit/chart/helm.ts';

const exec = promisify(execFile);
const admin = testKubeConfig();
const crdApi = admin.makeApiClient(ApiextensionsV1Api);
let ns: { name: string; remove: () => Promise<void> };
let chart: string;
let group: string;
const V2_MARK = 'Changed in version 2 of the chart.';

function helmRun(args: string[]) {
  return exec(helm(), [...args, '--namespace', ns.name, '--kubeconfig', testState().kubeconfig], {
    timeout: 120_000,
  });
}

/** A chart holding only the CRD templates (and the helpers they use), under `group`. */
function crdOnlyChart(dir: string): void {
  cpSync(CHART, dir, { recursive: true });
  for (const entry of readdirSync(join(dir, 'templates'), { withFileTypes: true }))
    if (entry.isFile() && !entry.name.startsWith('_')) rmSync(join(dir, 'templates', entry.name));
  for (const file of readdirSync(join(dir, 'templates', 'crds'))) {
    const path = join(dir, 'templates', 'crds', file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('slipway.dev', group));
  }
}

async function bundleCrd() {
  return crdApi.readCustomResourceDefinition({ name: `bundles.${group}` });
}

beforeAll(async () => {
  helm();
  ns = await createNamespace(admin, 'crds');
  group = `${ns.name.slice(-6)}.upgrade.slipway.dev`;
  chart = mkdtempSync(join(tmpdir(), 'slipway-crd-chart-'));
  crdOnlyChart(chart);
}, HELM_BUILD_TIMEOUT_MS);

afterAll(async () => {
  const all = await crdApi.listCustomResourceDefinition();
  for (const crd of all.items.filter((c) => c.spec.group === group))
    await crdApi.deleteCustomResourceDefinition({ name: crd.metadata!.name! }).catch(() => undefined);
  rmSync(chart, { recursive: true, force: true });
  await ns?.remove();
});

describe('CRDs installed with the chart', () => {
  it('are created by helm install, owned by the release', async () => {
    await helmRun(['install', 'crds', chart, '--wait']);
    const crd = await bundleCrd();
    expect(crd.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect(crd.metadata?.annotations?.['meta.helm.sh/release-name']).toBe('crds');
    const all = await crdApi.listCustomResourceDefinition();
    expect(all.items.filter((c) => c.spec.group === group)).toHaveLength(7);
  });

  it('take a changed schema on helm upgrade', async () => {
    const path = join(chart, 'templates', 'crds', 'bundles.slipway.dev.yaml');
    const v1 = readFileSync(path, 'utf8');
    const spec = 'What you want of this Bundle; you write it.';
    expect(v1).toContain(spec);
    writeFileSync(path, v1.replace(spec, `${spec} ${V2_MARK}`));
    await helmRun(['upgrade', 'crds', chart, '--wait']);
    const crd = await bundleCrd();
    const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema;
    expect(schema?.properties?.spec?.description).toContain(V2_MARK);
  });

  it('stay when the release is uninstalled (crds.keep)', async () => {
    await helmRun(['uninstall', 'crds', '--wait']);
    const crd = await bundleCrd();
    expect(crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.description).toContain(V2_MARK);
  });
});
