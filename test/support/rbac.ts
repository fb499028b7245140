// Least-privilege tests on a real API server: a ServiceAccount granted exactly the rules of a
// process's rbac.ts list, bound as the chart binds them; the process run in-process as that
// account (Impersonate-User); access reviews for what the account must not be able to do; and
// a logger that keeps what the process warned about, to show no call was forbidden.
import { Writable } from 'node:stream';
import {
  AuthorizationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
  type V1ResourceAttributes,
} from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import { apiStatus, impersonating, shareConnections } from '../../lib/kube.ts';
import { asKubernetesRules, type PolicyRule } from '../../lib/rbac.ts';
import { addWriters, removeWriters } from '../../scripts/cluster/writers.ts';
import { createNamespace } from './cluster.ts';

export { impersonating };

/** Rules granted by a Role in `namespace`, or by a ClusterRole (cluster-wide) when it is absent. */
export interface Grant {
  rules: readonly PolicyRule[];
  namespace?: string;
  /** Appended to the role's name, as the chart's "-leader-election". */
  suffix?: string;
}

export interface ServiceAccountIdentity {
  /** system:serviceaccount:<namespace>:<name> */
  user: string;
  /** The admin's connection, acting as the service account. */
  kubeConfig: KubeConfig;
  /** Deletes what is cluster-wide (ClusterRoles and their bindings); the rest goes with the namespace. */
  remove: () => Promise<void>;
}

/**
 * ServiceAccount `name` in `namespace` with one role and binding per grant, named as the chart
 * names them (ClusterRoles are prefixed with the namespace, so test runs never collide). A
 * `writer` is one of Slipway's identities (the chart lists its operator and gateway accounts in
 * the slipway-writers ConfigMap), until remove().
 */
export async function serviceAccountWith(
  admin: KubeConfig,
  namespace: string,
  name: string,
  grants: readonly Grant[],
  options: { writer?: boolean } = {},
): Promise<ServiceAccountIdentity> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await admin
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const subjects = [{ kind: 'ServiceAccount', name, namespace }];
  const clusterRoles: string[] = [];
  for (const grant of grants) {
    const roleName = `${name}${grant.suffix ?? ''}`;
    const rules = asKubernetesRules(grant.rules);
    if (grant.namespace) {
      const ns = grant.namespace;
      await rbac.createNamespacedRole({ namespace: ns, body: { metadata: { name: roleName }, rules } });
      await rbac.createNamespacedRoleBinding({
        namespace: ns,
        body: {
          metadata: { name: roleName },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
          subjects,
        },
      });
    } else {
      const clusterName = `${namespace}-${roleName}`;
      clusterRoles.push(clusterName);
      await rbac.createClusterRole({ body: { metadata: { name: clusterName }, rules } });
      await rbac.createClusterRoleBinding({
        body: {
          metadata: { name: clusterName },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterName },
          subjects,
        },
      });
    }
  }
  const user = `system:serviceaccount:${namespace}:${name}`;
  if (options.writer) await addWriters(admin, [user]);
  return {
    user,
    kubeConfig: shareConnections(impersonating(admin, user)),
    remove: async () => {
      if (options.writer) await removeWriters(admin, [user]);
      for (const clusterName of clusterRoles) {
        await rbac.deleteClusterRoleBinding({ name: clusterName }).catch(() => undefined);
        await rbac.deleteClusterRole({ name: clusterName }).catch(() => undefined);
      }
    },
  };
}

/**
 * Whether the identity of `kc` may do `verb` on `resource` (a SelfSubjectAccessReview, as
 * `kubectl auth can-i` does). `resource` is "group/resource[/subresource]", "" for the core group.
 */
export async function canI(
  kc: KubeConfig,
  verb: string,
  resource: string,
  namespace?: string,
  name?: string,
): Promise<boolean> {
  const [group = '', plural, subresource] = resource.split('/');
  const attributes: V1ResourceAttributes = { verb, group, resource: plural, subresource, namespace, name };
  const review = await kc.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
    body: { spec: { resourceAttributes: attributes } },
  });
  return review.status?.allowed === true;
}

/**
 * The answer to each question "verb group/resource[/subresource] [in namespace]" (in
 * `namespace` unless it names another), keyed by the question, so a test compares them all at once.
 */
export async function canIEach(
  kc: KubeConfig,
  namespace: string,
  questions: readonly string[],
): Promise<Record<string, 'yes' | 'no'>> {
  const answers = await Promise.all(
    questions.map(async (question) => {
      const [verb = '', resource = '', , other] = question.split(' ');
      return [question, (await canI(kc, verb, resource, other ?? namespace)) ? 'yes' : 'no'] as const;
    }),
  );
  return Object.fromEntries(answers);
}

/** The HTTP status the API server answered a call with ('done' when it succeeded). */
export function statusOf(call: Promise<unknown>): Promise<number | 'done' | undefined> {
  return call.then(
    () => 'done' as const,
    (err: unknown) => apiStatus(err),
  );
}

/** A process under test, run as its own ServiceAccount in a namespace of its own. */
export interface ProcessIdentity extends ServiceAccountIdentity {
  namespace: string;
  /** Give it to the process: it keeps every warning and error, as JSON lines. */
  log: Logger;
  /** The kept lines that tell of a forbidden call. */
  forbidden: () => string[];
  /** `promise`, or a failure naming `what` after `ms`, with the process's warnings attached. */
  within: <T>(promise: Promise<T>, ms: number, what: string) => Promise<T>;
  /** Deletes the cluster-wide roles and the namespace. */
  remove: () => Promise<void>;
}

/**
 * A fresh namespace with ServiceAccount `account` granted `grants(namespace)`, and a logger for
 * the process that runs as it.
 */
export async function processIdentity(
  admin: KubeConfig,
  prefix: string,
  account: string,
  grants: (namespace: string) => readonly Grant[],
  options: { writer?: boolean } = {},
): Promise<ProcessIdentity> {
  const ns = await createNamespace(admin, prefix);
  const identity = await serviceAccountWith(admin, ns.name, account, grants(ns.name), options);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString().trim());
      done();
    },
  });
  return {
    ...identity,
    namespace: ns.name,
    log: pino({ level: 'warn' }, sink),
    forbidden: () => lines.filter((l) => /forbidden|\b403\b/i.test(l)),
    within: async <T>(promise: Promise<T>, ms: number, what: string) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what}: not within ${ms} ms; warnings:\n${lines.join('\n')}`)),
          ms,
        );
      });
      try {
        return await Promise.race([promise, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    remove: async () => {
      await identity.remove();
      await ns.remove();
    },
  };
}
