// The installed release's pods, as the installed tier reads them: which are Ready, what they
// logged (pino's JSON lines, and Caddy's access log).
import { CoreV1Api } from '@kubernetes/client-node';
import { RELEASE_NAMESPACE } from '../../../scripts/helm/install.ts';
import { kubectl, testKubeConfig } from '../../support/cluster.ts';

const core = testKubeConfig().makeApiClient(CoreV1Api);

/** The release's pods of one component, Ready and not terminating. */
export async function readyPods(component: string) {
  const pods = await core.listNamespacedPod({
    namespace: RELEASE_NAMESPACE,
    labelSelector: `app.kubernetes.io/instance=slipway,app.kubernetes.io/component=${component}`,
  });
  return pods.items.filter(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
}

/** The JSON lines of a log (Caddy's access log, a pod's pino log). */
export function jsonLines(
  text: string,
): Array<{ request?: { method?: string; uri?: string }; status?: number; slug?: string; method?: string }> {
  return text.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as never];
    } catch {
      return [];
    }
  });
}

/** What a component's pods logged, one string per pod name. */
export async function podLogs(component: string): Promise<Map<string, string>> {
  const logs = new Map<string, string>();
  for (const pod of await readyPods(component)) {
    const name = pod.metadata!.name!;
    logs.set(name, (await kubectl(['logs', '-n', RELEASE_NAMESPACE, name])).stdout);
  }
  return logs;
}
