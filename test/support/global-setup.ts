// Integration tier: a real kube-apiserver. SLIPWAY_TEST_KUBECONFIG points at an existing
// cluster; otherwise the local control plane is started (built the first time) for the run.
import { prepareTestCluster } from './prepare-cluster.ts';

export default async function globalSetup(): Promise<void> {
  await prepareTestCluster({
    tier: 'integration',
    cluster: process.env.SLIPWAY_TEST_CLUSTER ?? 'slipway-test',
    existingKubeconfig: process.env.SLIPWAY_TEST_KUBECONFIG,
  });
}
