// npm run cluster:down — stop the local control plane; no process or port is left behind.
import { clusterDown } from './control-plane.ts';

await clusterDown(process.env.SLIPWAY_CLUSTER_NAME ?? 'slipway');
