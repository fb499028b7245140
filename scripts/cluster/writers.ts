// Slipway's identities on a cluster the project's own tools set up (npm start, the test tiers,
// the benchmarks): the users in the slipway-writers ConfigMap (crds/writers.ts), who alone may
// write the status of Slipway's kinds. The processes started here act as LOCAL_CONTROLLER, a user
// with cluster-admin rights impersonated through the admin's kubeconfig, so the admin itself
// (and so every test that acts as a cluster admin or a tenant) is refused like anyone else.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { WRITERS_CONFIG_MAP, WRITERS_NAMESPACE, writersConfigMap, writersOf } from '../../crds/writers.ts';
import { apiStatus, impersonating, isNotFound, shareConnections } from '../../lib/kube.ts';

/** The user the local processes act as (not a ServiceAccount: the chart's stay least-privileged). */
export const LOCAL_CONTROLLER = 'slipway:local-controller';

/** `kc` acting as LOCAL_CONTROLLER, with its own connection pool. */
export function asLocalController(kc: KubeConfig): KubeConfig {
  return shareConnections(impersonating(kc, LOCAL_CONTROLLER));
}

/**
 * Writes to `path` a kubeconfig of `kc`'s cluster and user that acts as LOCAL_CONTROLLER (`as:`),
 * for the processes started with KUBECONFIG; returns `path`.
 */
export function localControllerKubeconfig(kc: KubeConfig, path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  const cluster = kc.getCurrentCluster()!;
  const user = kc.getCurrentUser()!;
  const file = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: cluster.name,
        cluster: {
          server: cluster.server,
          ...(cluster.caFile ? { 'certificate-authority': cluster.caFile } : {}),
          ...(cluster.caData ? { 'certificate-authority-data': cluster.caData } : {}),
          ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [
      {
        name: LOCAL_CONTROLLER,
        user: {
          ...(user.certFile ? { 'client-certificate': user.certFile } : {}),
          ...(user.certData ? { 'client-certificate-data': user.certData } : {}),
          ...(user.keyFile ? { 'client-key': user.keyFile } : {}),
          ...(user.keyData ? { 'client-key-data': user.keyData } : {}),
          ...(user.token ? { token: user.token } : {}),
          as: LOCAL_CONTROLLER,
        },
      },
    ],
    contexts: [{ name: LOCAL_CONTROLLER, context: { cluster: cluster.name, user: LOCAL_CONTROLLER } }],
    'current-context': LOCAL_CONTROLLER,
  };
  writeFileSync(path, stringify(file), { mode: 0o600 });
  return path;
}

/** Makes LOCAL_CONTROLLER a cluster admin and one of the writers. */
export async function installLocalController(kc: KubeConfig): Promise<void> {
  const name = 'slipway-local-controller';
  const body = {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: LOCAL_CONTROLLER }],
  };
  await kc
    .makeApiClient(RbacAuthorizationV1Api)
    .createClusterRoleBinding({ body })
    .catch((err: unknown) => {
      if (apiStatus(err) !== 409) throw err;
    });
  await addWriters(kc, [LOCAL_CONTROLLER]);
}

/**
 * Adds `users` to the writers ConfigMap (made, with its namespace, when missing), as
 * `admissionPolicies.writers` does in the chart; keeps those listed already.
 */
export function addWriters(kc: KubeConfig, users: readonly string[]): Promise<void> {
  return editWriters(kc, (listed) => [...listed, ...users.filter((u) => !listed.includes(u))]);
}

/** Takes `users` off the writers ConfigMap. */
export function removeWriters(kc: KubeConfig, users: readonly string[]): Promise<void> {
  return editWriters(kc, (listed) => listed.filter((u) => !users.includes(u)));
}

async function editWriters(kc: KubeConfig, edit: (listed: string[]) => string[]): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: WRITERS_NAMESPACE } } }).catch((err: unknown) => {
    if (apiStatus(err) !== 409) throw err;
  });
  for (;;) {
    const current = await core
      .readNamespacedConfigMap({ name: WRITERS_CONFIG_MAP, namespace: WRITERS_NAMESPACE })
      .catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    const listed = writersOf(current?.data);
    const wanted = edit(listed);
    if (current && wanted.join('\n') === listed.join('\n')) return;
    const body = writersConfigMap(wanted);
    const write = current
      ? core.replaceNamespacedConfigMap({
          name: WRITERS_CONFIG_MAP,
          namespace: WRITERS_NAMESPACE,
          body: {
            ...body,
            metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion },
          },
        })
      : core.createNamespacedConfigMap({ namespace: WRITERS_NAMESPACE, body });
    // Someone else wrote it first (409): read it again.
    const done = await write.then(
      () => true,
      (err: unknown) => {
        if (apiStatus(err) !== 409) throw err;
        return false;
      },
    );
    if (done) return;
  }
}
