// npm run cluster:up [-- --real-node] — start (or reuse) the local control plane and print its
// kubeconfig path. --real-node: one real kubelet on this machine instead of kwok nodes.
import { clusterUp } from './control-plane.ts';
import { realNode } from './real-node.ts';

const started = Date.now();
const realNodeWanted = process.argv.includes('--real-node');
const cluster = await clusterUp(process.env.SLIPWAY_CLUSTER_NAME ?? 'slipway', { realNode: realNodeWanted });
process.stderr.write(`[cluster] ready in ${((Date.now() - started) / 1000).toFixed(1)} s; use it with:\n`);
process.stderr.write(`  export KUBECONFIG=${cluster.kubeconfig}\n`);
if (cluster.node === 'real') {
  const node = realNode();
  process.stderr.write(
    `  registry ${node.registry} (plain HTTP), host address for pods ${node.hostAddress}\n`,
  );
}
console.log(cluster.kubeconfig);
