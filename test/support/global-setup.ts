// Integration tier: a real kube-apiserver. SLIPWAY_TEST_KUBECONFIG points at an existing
// cluster; otherwise the local control plane is started (built the first time) for the run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { installCrds } from '../../crds/install.ts';
import { kubeConfigFromFile } from '../../lib/kube.ts';
import { clusterUp } from '../../scripts/cluster/control-plane.ts';
import { STATE_DIR, STATE_FILE, type TestClusterState } from './state.ts';

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  let state: TestClusterState;
  if (process.env.SLIPWAY_TEST_KUBECONFIG) {
    state = { kubeconfig: process.env.SLIPWAY_TEST_KUBECONFIG, created: false };
  } else {
    const cluster = await clusterUp(process.env.SLIPWAY_TEST_CLUSTER ?? 'slipway-test');
    state = {
      kubeconfig: cluster.kubeconfig,
      binDir: cluster.binDir,
      name: cluster.name,
      created: cluster.created,
    };
  }
  await installCrds(kubeConfigFromFile(state.kubeconfig));
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(state));
  process.env.SLIPWAY_TEST_KUBECONFIG = state.kubeconfig;
  process.stderr.write(
    `\n[integration] API server ready with CRDs in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
