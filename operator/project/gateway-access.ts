// The gateway reads webhook Secrets by name, and may read no others: in every namespace with
// Projects, a Role lets the gateway's ServiceAccount `get` exactly those Projects' webhook
// Secrets (resourceNames), bound by a RoleBinding. The set follows the Projects; a namespace
// without any loses both (a Role with no resourceNames would allow every Secret). The binding
// follows SLIPWAY_GATEWAY_SERVICE_ACCOUNT when it changes.
import { inShard } from '../shard.ts';
import type { V1Role, V1RoleBinding } from '@kubernetes/client-node';
import { MANAGED_BY } from '../../crds/labels.ts';
import { ignoreNotFound, isAlreadyExists, isNotFound } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';
import { shardName } from '../shard.ts';
import { MANAGER, webhookSecretName } from '../names.ts';

export const GATEWAY_ACCESS_NAME = 'slipway-gateway-webhook-secrets';

/**
 * The Role's name for an operator: each shard grants its own Projects' Secrets in a Role of its
 * own (grants add up), so shards sharing a namespace do not overwrite each other's.
 */
export const gatewayAccessName = (selector: string | undefined) => shardName(GATEWAY_ACCESS_NAME, selector);

/**
 * Every Project reconcile asks for the namespace's grant; the API is read only when the set of
 * Secrets changed since it was last applied, or that was longer ago than this (so a Role someone
 * deleted by hand comes back).
 */
const RECHECK_MS = 10 * 60_000;

/** The webhook Secrets of the namespace's Projects, sorted (what the Role names). */
export function webhookSecretNames(
  projects: ReadonlyArray<{
    metadata: { name: string; deletionTimestamp?: unknown };
    spec: { webhookSecretRef?: { name: string } };
  }>,
): string[] {
  const names = projects
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => p.spec.webhookSecretRef?.name ?? webhookSecretName(p.metadata.name));
  return [...new Set(names)].sort();
}

export class GatewayAccess {
  readonly #ctx: OperatorContext;
  /** By namespace: the Secret names last applied, and when. */
  readonly #applied = new Map<string, { names: string; at: number }>();

  constructor(ctx: OperatorContext) {
    this.#ctx = ctx;
  }

  async sync(namespace: string): Promise<void> {
    const account = this.#ctx.config.gatewayServiceAccount;
    if (!account) return;
    // This shard's Projects: each shard grants its own in a Role of its own.
    const names = webhookSecretNames(
      this.#ctx.informers.projects.list(namespace).filter((p) => inShard(this.#ctx, p)),
    );
    const now = this.#ctx.now().getTime();
    const last = this.#applied.get(namespace);
    if (last && last.names === names.join(',') && now - last.at < RECHECK_MS) return;
    await apply(this.#ctx, namespace, names, account);
    this.#applied.set(namespace, { names: names.join(','), at: now });
  }
}

async function apply(
  ctx: OperatorContext,
  namespace: string,
  names: string[],
  account: { namespace: string; name: string },
): Promise<void> {
  const name = gatewayAccessName(ctx.config.watchLabelSelector);
  const { rbac } = ctx.clients;
  if (names.length === 0) {
    await rbac.deleteNamespacedRoleBinding({ name: name, namespace }).catch(ignoreNotFound);
    await rbac.deleteNamespacedRole({ name: name, namespace }).catch(ignoreNotFound);
    return;
  }
  const metadata = { name: name, namespace, labels: { [MANAGED_BY]: MANAGER } };
  const role: V1Role = {
    metadata,
    rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: names }],
  };
  const binding: V1RoleBinding = {
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: name },
    subjects: [{ kind: 'ServiceAccount', name: account.name, namespace: account.namespace }],
  };
  const current = await rbac.readNamespacedRole({ name: name, namespace }).catch(missing);
  if (!current) await rbac.createNamespacedRole({ namespace, body: role }).catch(ignoreAlreadyExists);
  else if (JSON.stringify(current.rules?.[0]?.resourceNames ?? []) !== JSON.stringify(names))
    await rbac.replaceNamespacedRole({
      name: name,
      namespace,
      body: { ...role, metadata: { ...metadata, resourceVersion: current.metadata?.resourceVersion } },
    });
  const bound = await rbac.readNamespacedRoleBinding({ name: name, namespace }).catch(missing);
  if (!bound) await rbac.createNamespacedRoleBinding({ namespace, body: binding }).catch(ignoreAlreadyExists);
  // The gateway's account was renamed (a chart upgrade, another release name): the grant moves.
  else if (JSON.stringify(bound.subjects ?? []) !== JSON.stringify(binding.subjects))
    await rbac.replaceNamespacedRoleBinding({
      name: name,
      namespace,
      body: { ...binding, metadata: { ...metadata, resourceVersion: bound.metadata?.resourceVersion } },
    });
}

const missing = (err: unknown) => {
  if (isNotFound(err)) return undefined;
  throw err;
};
const ignoreAlreadyExists = (err: unknown) => {
  if (!isAlreadyExists(err)) throw err;
};
