// The e2e tier's cluster: the local control plane with the real node, built the first time.
import { prepareTestCluster } from '../../support/prepare-cluster.ts';
import { reapLeftovers } from './leftovers.ts';

export default async function globalSetup(): Promise<void> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    throw new Error(
      'The e2e tier runs real pods on this machine (a kubelet, containerd, a CNI bridge) and needs root on Linux. ' +
        'Run `npm test` as root, as CI does; `npm run test:unit` and `npm run test:integration` need neither.',
    );
  }
  const reaped = reapLeftovers();
  if (reaped > 0) process.stderr.write(`[e2e] stopped ${reaped} processes an interrupted run left behind\n`);
  await prepareTestCluster({ tier: 'e2e', cluster: 'slipway-e2e', realNode: true });
}
