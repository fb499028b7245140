// A tier's cluster: an existing one (kubeconfig given), or the local control plane started for
// the run with kwok nodes or the real node; CRDs installed; recorded in STATE_FILE for the tests
// and the global teardown.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { installAdmissionPolicies, installCrds } from '../../scripts/cluster/install-crds.ts';
import { kubeConfigFromFile } from '../../lib/kube.ts';
import { clusterUp } from '../../scripts/cluster/control-plane.ts';
import { installLocalController, localControllerKubeconfig } from '../../scripts/cluster/writers.ts';
import { installBuildNamespace } from '../../scripts/cluster/build-namespace.ts';
import {
  CONTROLLER_KUBECONFIG,
  KUBECTL_CACHE_DIR,
  STATE_DIR,
  STATE_FILE,
  type TestClusterState,
} from './state.ts';

export async function prepareTestCluster(options: {
  tier: string;
  cluster: string;
  existingKubeconfig?: string;
  realNode?: boolean;
}): Promise<TestClusterState> {
  const started = Date.now();
  let state: Omit<TestClusterState, 'controllerKubeconfig'>;
  if (options.existingKubeconfig) {
    state = { kubeconfig: options.existingKubeconfig, created: false };
  } else {
    const cluster = await clusterUp(options.cluster, { realNode: options.realNode });
    state = {
      kubeconfig: cluster.kubeconfig,
      binDir: cluster.binDir,
      name: cluster.name,
      created: cluster.created,
      node: cluster.node,
    };
  }
  const kc = kubeConfigFromFile(state.kubeconfig);
  await installCrds(kc);
  await installAdmissionPolicies(kc);
  await installLocalController(kc);
  await installBuildNamespace(kc);
  const ready: TestClusterState = {
    ...state,
    controllerKubeconfig: localControllerKubeconfig(kc, CONTROLLER_KUBECONFIG),
  };
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(STATE_FILE, JSON.stringify(ready));
  rmSync(KUBECTL_CACHE_DIR, { recursive: true, force: true });
  process.env.SLIPWAY_TEST_KUBECONFIG = state.kubeconfig;
  process.stderr.write(
    `\n[${options.tier}] API server ready with CRDs in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return ready;
}
