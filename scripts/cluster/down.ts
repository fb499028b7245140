// npm run cluster:down — stop the local control plane (and its real node, if it has one); no
// process, port, mount or host network change is left behind.
import { clusterDown } from './control-plane.ts';

await clusterDown(process.env.SLIPWAY_CLUSTER_NAME ?? 'slipway');
