// The e2e tier's cluster: the local control plane with the real node, built the first time.
import { prepareTestCluster } from '../../support/prepare-cluster.ts';
import { reapLeftovers } from './leftovers.ts';
import { uninstallRelease } from '../../../scripts/helm/install.ts';

export default async function globalSetup(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error(
      'The e2e tier runs real pods on this machine (a kubelet, containerd, a CNI bridge) and needs root on Linux. ' +
        'Run `npm test` as root, as CI does; `npm run test:unit` and `npm run test:integration` need neither.',
    );
  }
  const reaped = reapLeftovers();
  if (reaped > 0) process.stderr.write(`[e2e] stopped ${reaped} processes an interrupted run left behind\n`);
  const state = await prepareTestCluster({ tier: 'e2e', cluster: 'slipway-e2e', realNode: true });
  // A cluster kept from an interrupted run may still hold the installed suite's release, whose
  // operator watches every namespace: it would act on the other files' bundles too.
  if (!state.created) await uninstallRelease(state.kubeconfig).catch(() => undefined);
}
