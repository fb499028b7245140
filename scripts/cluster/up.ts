// npm run cluster:up — start (or reuse) the local control plane and print its kubeconfig path.
import { clusterUp } from './control-plane.ts';

const started = Date.now();
const cluster = await clusterUp(process.env.SLIPWAY_CLUSTER_NAME ?? 'slipway');
process.stderr.write(`[cluster] ready in ${((Date.now() - started) / 1000).toFixed(1)} s; use it with:\n`);
process.stderr.write(`  export KUBECONFIG=${cluster.kubeconfig}\n`);
console.log(cluster.kubeconfig);
