// The chart's CRDs are templates: `helm install` creates them, `helm upgrade` applies a changed
// schema (Helm never upgrades a chart's crds/ folder), and `helm uninstall` keeps them. Tried on
// a copy of the chart's Bundle CRD template under a kind and group of its own, so the test
// cluster's real Slipway CRDs, which the other tests use, are never touched.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { createNamespace, testKubeConfig, testState, waitFor } from '../../support/cluster.ts';
import { CHART, HELM_BUILD_TIMEOUT_MS, helm } from '../../unit/chart/helm.ts';

const exec = promisify(execFile);
const admin = testKubeConfig();
const crdApi = admin.makeApiClient(ApiextensionsV1Api);
let ns: { name: string; remove: () => Promise<void> };
let chart: string;
let group: string;
const V2_MARK = 'Changed in version 2 of the chart.';
const PROBE_FILE = 'upgradeprobes.yaml';

function helmRun(args: string[]) {
  return exec(helm(), [...args, '--namespace', ns.name, '--kubeconfig', testState().kubeconfig], {
    timeout: 120_000,
  });
}

/**
 * A chart holding one CRD template (the Bundle's) and the helpers it uses, renamed to a kind
 * and group of its own: nothing another test asks kubectl for can resolve to it.
 */
function probeChart(dir: string): void {
  cpSync(CHART, dir, { recursive: true });
  for (const entry of readdirSync(join(dir, 'templates'), { withFileTypes: true }))
    if (entry.isFile() && !entry.name.startsWith('_')) rmSync(join(dir, 'templates', entry.name));
  for (const file of readdirSync(join(dir, 'templates', 'crds')))
    rmSync(join(dir, 'templates', 'crds', file));
  // Cluster-wide objects the test cluster has already (installed like the CRDs).
  rmSync(join(dir, 'templates', 'admission'), { recursive: true });
  const names = `    kind: Bundle
    listKind: BundleList
    plural: bundles
    singular: bundle
    shortNames:
      - swb
    categories:
      - slipway
`;
  const bundle = readFileSync(join(CHART, 'templates', 'crds', 'bundles.slipway.dev.yaml'), 'utf8');
  expect(bundle).toContain(names);
  writeFileSync(
    join(dir, 'templates', 'crds', PROBE_FILE),
    bundle
      .replace(
        names,
        '    kind: UpgradeProbe\n    listKind: UpgradeProbeList\n    plural: upgradeprobes\n    singular: upgradeprobe\n',
      )
      .replaceAll('bundles.slipway.dev', `upgradeprobes.${group}`)
      .replaceAll('group: slipway.dev', `group: ${group}`),
  );
}

async function probeCrd() {
  return crdApi.readCustomResourceDefinition({ name: `upgradeprobes.${group}` });
}

beforeAll(async () => {
  helm();
  ns = await createNamespace(admin, 'crds');
  group = `${ns.name.slice(-6)}.upgrade.slipway.dev`;
  chart = mkdtempSync(join(tmpdir(), 'slipway-crd-chart-'));
  probeChart(chart);
}, HELM_BUILD_TIMEOUT_MS);

afterAll(async () => {
  const ours = async () =>
    (await crdApi.listCustomResourceDefinition()).items.filter((c) => c.spec.group === group);
  for (const crd of await ours())
    await crdApi.deleteCustomResourceDefinition({ name: crd.metadata!.name! }).catch(() => undefined);
  // Gone from discovery before the next test file asks the API server what it serves.
  await waitFor('the test CRDs to be deleted', async () => (await ours()).length === 0, 60_000);
  rmSync(chart, { recursive: true, force: true });
  await ns?.remove();
});

describe('CRDs installed with the chart', () => {
  it('are created by helm install, owned by the release', async () => {
    await helmRun(['install', 'crds', chart, '--wait']);
    const crd = await probeCrd();
    expect(crd.spec.names.categories).toBeUndefined();
    expect(crd.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect(crd.metadata?.annotations?.['meta.helm.sh/release-name']).toBe('crds');
    expect(crd.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
  });

  it('take a changed schema on helm upgrade', async () => {
    const path = join(chart, 'templates', 'crds', PROBE_FILE);
    const v1 = readFileSync(path, 'utf8');
    const spec = 'What you want of this Bundle; you write it.';
    expect(v1).toContain(spec);
    writeFileSync(path, v1.replace(spec, `${spec} ${V2_MARK}`));
    await helmRun(['upgrade', 'crds', chart, '--wait']);
    const crd = await probeCrd();
    const schema = crd.spec.versions[0]?.schema?.openAPIV3Schema;
    expect(schema?.properties?.spec?.description).toContain(V2_MARK);
  });

  it('stay when the release is uninstalled (crds.keep)', async () => {
    await helmRun(['uninstall', 'crds', '--wait']);
    const crd = await probeCrd();
    expect(crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.description).toContain(V2_MARK);
  });
});
