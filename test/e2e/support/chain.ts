// What the e2e tests do as a user would: wait for a bundle's final phase, read the page a
// rolled-out pod serves; and what they print when something fails.
import { isFinished } from '../../../rules/bundle-outcome.ts';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { BundleObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import { kubectl, waitFor } from '../../support/cluster.ts';
import { NODE_DIR } from '../../../scripts/cluster/real-node.ts';
import { logTail } from './slipway.ts';

const run = promisify(execFile);

/** Waits for the bundle's final phase (a build, backup and rollout take a minute or two; Built for one that deploys nothing). */
export async function finalBundle(kc: KubeConfig, namespace: string, name: string, timeoutMs = 300_000) {
  const api = slipwayApi(kc);
  let last: BundleObject | undefined;
  try {
    return await waitFor(
      `bundle ${name} to finish (Ready, Built without a deploy, Failed or Superseded)`,
      async () => {
        last = await api.get<BundleObject>('Bundle', namespace, name);
        return isFinished(last) ? last : undefined;
      },
      timeoutMs,
      500,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${JSON.stringify(last?.status, null, 1)}`);
  }
}

export function readyCondition(bundle: BundleObject) {
  return bundle.status?.conditions?.find((c) => c.type === 'Ready');
}

/**
 * The page at `path` served by a Ready pod of the Deployment that runs `bundle` (the operator
 * annotates the pod template with it), fetched from this machine at the pod's IP.
 */
export async function servedPage(
  kc: KubeConfig,
  namespace: string,
  deployment: string,
  port: number,
  bundle?: string,
  path = '/',
): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const pod = await waitFor(
    `a Ready pod of ${deployment}${bundle ? ` running bundle ${bundle}` : ''}`,
    async () => {
      const pods = await core.listNamespacedPod({ namespace, labelSelector: `app=${deployment}` });
      return pods.items.find(
        (p) =>
          !p.metadata?.deletionTimestamp &&
          p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
          (!bundle || p.metadata?.annotations?.['slipway.dev/bundle'] === bundle),
      );
    },
    60_000,
    250,
  );
  const res = await fetch(`http://${pod.status!.podIP}:${port}${path}`);
  return `${res.status} ${await res.text()}`;
}

/** The path on this machine of a backup, from the bundle's `pvc://<claim>/<path>` location. */
export function backupFile(bundle: BundleObject, hostDirOfClaim: string): string {
  const location = bundle.status?.backup?.location ?? '';
  const path = location.replace(/^pvc:\/\/[^/]+\//, '');
  const file = `${hostDirOfClaim}/${path}`;
  if (!location || !existsSync(file))
    throw new Error(`no backup file at ${file} (location ${location || 'unset'})`);
  return file;
}

/** What a developer looks at when a step fails: bundles, pods, their logs, operator and kubelet. */
export async function diagnostics(namespace: string): Promise<string> {
  const section = async (title: string, body: Promise<string> | string) =>
    `--- ${title}\n${await Promise.resolve(body).catch((e: unknown) => String(e))}`;
  const k = async (...args: string[]) => (await kubectl(args)).stdout.trim();
  const pods = await k('get', 'pods', '-n', namespace, '-o', 'name').catch(() => '');
  const podLogs = await Promise.all(
    pods
      .split('\n')
      .filter(Boolean)
      .map((pod) =>
        section(
          `logs of ${pod}`,
          k('logs', '-n', namespace, pod, '--all-containers', '--tail=25', '--prefix'),
        ),
      ),
  );
  const kubeletLog = `${NODE_DIR}/logs/kubelet.log`;
  const kubelet = existsSync(kubeletLog)
    ? readFileSync(kubeletLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes(namespace) && /^[EW]/.test(l))
        .slice(-25)
        .join('\n')
    : '(no kubelet log)';
  return [
    await section('bundles', k('get', 'bundles', '-n', namespace, '-o', 'wide')),
    await section('pods', k('get', 'pods', '-n', namespace, '-o', 'wide')),
    await section('events', k('get', 'events', '-n', namespace, '--sort-by=.lastTimestamp')),
    ...podLogs,
    await section(
      'operator (warnings and errors)',
      logTail('operator', 30, (l) => /"level":"(warn|error|fatal)"/.test(l)),
    ),
    await section('gateway', logTail('gateway', 15)),
    await section('kubelet (errors and warnings about this namespace)', kubelet),
  ].join('\n');
}

/** Runs a test step; when it fails, the error carries the diagnostics of `namespace()`. */
export function step(namespace: () => string, fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      error.message = `${error.message}\n\n${await diagnostics(namespace())}`;
      throw error;
    }
  };
}

export { run };
