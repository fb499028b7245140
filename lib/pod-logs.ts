// The logs of a Job's pods, container by container in the order they run: what
// `kubectl slipway logs` prints and what the gateway serves at a bundle's logs URL (the build
// runs in the build namespace, where tenants cannot read, docs/adr/0004). One shape for both.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { apiMessage } from './kube.ts';

export interface ContainerLog {
  name: string;
  /** It has run (or runs): it has a log. */
  started: boolean;
  /** It has ended: its log is whole. */
  ended: boolean;
  /** Its log (its first `limitBytes`), unless it has not started or could not be read. */
  log?: string;
  /** The log goes on past `limitBytes`. */
  truncated?: boolean;
  /** Why its log could not be read. */
  error?: string;
}

export interface PodLogs {
  pod: string;
  namespace: string;
  containers: ContainerLog[];
}

/** The pod's containers in the order they run (init containers first), with their state. */
export function containersInOrder(pod: V1Pod): Array<Omit<ContainerLog, 'log' | 'error'>> {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => {
    const s = statuses.find((x) => x.name === c.name);
    return {
      name: c.name,
      started: Boolean(s?.state?.running || s?.state?.terminated || s?.lastState?.terminated),
      ended: Boolean(s?.state?.terminated),
    };
  });
}

const created = (p: V1Pod) => new Date(p.metadata?.creationTimestamp ?? 0).getTime();

/** Reads the log of every started container of `pods`, oldest pod first. */
export async function readPodLogs(
  core: CoreV1Api,
  pods: readonly V1Pod[],
  /** Bytes read of each container's log (its start); the whole log when undefined. */
  limitBytes?: number,
): Promise<PodLogs[]> {
  const out: PodLogs[] = [];
  for (const pod of [...pods].sort((a, b) => created(a) - created(b))) {
    const { name, namespace } = pod.metadata as { name: string; namespace: string };
    const containers: ContainerLog[] = [];
    for (const c of containersInOrder(pod)) {
      if (!c.started) {
        containers.push(c);
        continue;
      }
      try {
        const log = await core.readNamespacedPodLog({ name, namespace, container: c.name, limitBytes });
        const truncated = limitBytes !== undefined && Buffer.byteLength(log) >= limitBytes;
        containers.push({ ...c, log, ...(truncated ? { truncated } : {}) });
      } catch (err) {
        containers.push({ ...c, error: apiMessage(err) });
      }
    }
    out.push({ pod: name, namespace, containers });
  }
  return out;
}
