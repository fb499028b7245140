// What every outbound call of the operator goes through: the address guard (address-guard.ts),
// which refuses inside addresses after DNS, and the cluster's ranges it learns (cluster-ranges.ts);
// with each read of those ranges the NetworkPolicy around builds (build-egress.ts) cuts the same
// ranges out, the first before the controllers start any build.
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClients } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import type { OperatorConfig } from '../config.ts';
import { AddressGuard } from './address-guard.ts';
import { BuildEgressPolicy } from './build-egress.ts';
import { ClusterRanges } from './cluster-ranges.ts';
import { guardedFetch } from './guarded-fetch.ts';

export function outboundCalls(
  kc: KubeConfig,
  config: Pick<OperatorConfig, 'outbound' | 'buildEgress' | 'buildNamespace'>,
  clients: Pick<KubeClients, 'apply'>,
  log: Logger,
): { fetch: typeof fetch; clusterRanges: ClusterRanges } {
  const guard = new AddressGuard(config.outbound);
  const buildEgress = config.buildEgress
    ? new BuildEgressPolicy(
        clients.apply,
        { namespace: config.buildNamespace, settings: config.buildEgress, deny: config.outbound.deny },
        log,
      )
    : undefined;
  const clusterRanges = new ClusterRanges(
    kc,
    guard,
    log,
    buildEgress && ((ranges) => buildEgress.write(ranges)),
  );
  return { fetch: guardedFetch(guard), clusterRanges };
}
