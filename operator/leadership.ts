// Leader election among the operator's replicas (a Lease, config.leaseName): client-go's
// proportions — the renew deadline 2/3 of the lease, retries every 2/15 — and the leader gauge.
import type { KubeClients } from '../lib/kube.ts';
import { LeaderElector } from '../lib/leader.ts';
import type { Logger } from '../lib/log.ts';
import type { OperatorConfig } from './config.ts';
import { leader as leaderGauge } from './metrics.ts';

export function operatorElector(
  config: Pick<OperatorConfig, 'podNamespace' | 'leaseName' | 'podName' | 'leaseDurationSeconds'>,
  clients: Pick<KubeClients, 'coordination'>,
  log: Logger,
  on: { started: () => void; stopped: () => void },
): LeaderElector {
  const leaseMs = config.leaseDurationSeconds * 1000;
  return new LeaderElector({
    api: clients.coordination,
    namespace: config.podNamespace,
    name: config.leaseName,
    identity: config.podName,
    leaseDurationMs: leaseMs,
    renewDeadlineMs: (leaseMs * 2) / 3,
    retryPeriodMs: (leaseMs * 2) / 15,
    log,
    onStartedLeading: () => {
      leaderGauge.set(1);
      on.started();
    },
    onStoppedLeading: () => {
      leaderGauge.set(0);
      on.stopped();
    },
  });
}
