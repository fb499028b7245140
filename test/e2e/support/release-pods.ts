// The installed release's pods, as the installed tier reads them: which are Ready, what they
// logged (pino's JSON lines, and Caddy's access log), what they run, and what the namespace holds.
import { CoreV1Api } from '@kubernetes/client-node';
import { RELEASE_NAMESPACE } from '../../../scripts/helm/install.ts';
import { kubectl, testKubeConfig, waitFor } from '../../support/cluster.ts';

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

/** `kubectl scale` of one component's Deployment; with 0, until none of its pods is left. */
export async function scaleComponent(component: string, deployment: string, replicas: number): Promise<void> {
  await kubectl(['scale', 'deployment', '-n', RELEASE_NAMESPACE, deployment, `--replicas=${replicas}`]);
  if (replicas === 0)
    await waitFor(
      `the ${component} pods to stop`,
      async () =>
        (
          await core.listNamespacedPod({
            namespace: RELEASE_NAMESPACE,
            labelSelector: `app.kubernetes.io/instance=slipway,app.kubernetes.io/component=${component}`,
          })
        ).items.length === 0,
      60_000,
      250,
    );
}

/** Waits until the release's `count` pods all run `image`, none terminating. */
export async function releaseRuns(image: string, count: number): Promise<void> {
  await waitFor(
    'every pod of the release to run the new image, none terminating',
    async () => {
      const pods = (
        await core.listNamespacedPod({
          namespace: RELEASE_NAMESPACE,
          labelSelector: 'app.kubernetes.io/instance=slipway',
        })
      ).items;
      return (
        pods.length === count &&
        pods.every((p) => !p.metadata?.deletionTimestamp && p.spec!.containers[0]!.image === image)
      );
    },
    180_000,
    500,
  );
}

/** What the release namespace holds, as `kubectl get -o name` lines, sorted. */
export async function releaseNamespaceObjects(): Promise<string[]> {
  const { stdout } = await kubectl([
    'get',
    'all,ingresses,secrets,configmaps,serviceaccounts,roles,rolebindings,leases,poddisruptionbudgets,networkpolicies,persistentvolumeclaims',
    '-n',
    RELEASE_NAMESPACE,
    '-o',
    'name',
  ]);
  return stdout.trim().split('\n').sort();
}

/**
 * Whether the Service of `component` routes to exactly its ready pods, by their addresses in its
 * EndpointSlices: a pod that is Ready is not yet behind its Service until the EndpointSlice
 * controller has seen it (under load, seconds later), and a slice can still list the addresses of
 * pods scaled away, which other pods may have taken since (a tenant's web server answering the
 * status API's address with an empty 404).
 */
export async function behindService(component: string): Promise<boolean> {
  const { stdout } = await kubectl([
    'get',
    'endpointslices',
    '-n',
    RELEASE_NAMESPACE,
    '-l',
    `kubernetes.io/service-name=slipway-${component}`,
    '-o',
    'json',
  ]);
  const slices = JSON.parse(stdout) as {
    items: Array<{ endpoints?: Array<{ addresses: string[]; conditions?: { ready?: boolean } }> }>;
  };
  const routed = slices.items
    .flatMap((s) => s.endpoints ?? [])
    .filter((e) => e.conditions?.ready !== false)
    .flatMap((e) => e.addresses)
    .sort();
  const pods = (await readyPods(component)).map((p) => p.status?.podIP ?? '').sort();
  return pods.length > 0 && JSON.stringify(routed) === JSON.stringify(pods);
}
