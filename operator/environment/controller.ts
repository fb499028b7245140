// The Environment controller: checks the project and Deployment an environment points at (a
// missing one gives Ready=False with a reason; the watches bring it back when it appears), and
// reports the rollouts the Bundle controller performs (status.currentBundle, lastDeployment).
// It is the only writer of the Environment's status.
import { inShard } from '../shard.ts';
import { objectKey } from '../../lib/informer.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../reconcile/controller.ts';
import type { EnvironmentObject } from '../../crds/index.ts';
import { isNotFound } from '../../lib/kube.ts';
import { decideEnvironment, deploymentRecord, type EnvironmentReferences } from './decide.ts';

export class EnvironmentReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  /** By environment: when its references were read, for which names, and what was found. */
  private readonly memo = new Map<string, { at: number; names: string; references: EnvironmentReferences }>();

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers } = this.ctx;
    const environment = informers.environments.get(namespace, name);
    if (!environment || environment.metadata.deletionTimestamp) {
      this.memo.delete(objectKey(namespace, name));
      return;
    }
    const project = informers.projects.get(namespace, environment.spec.projectRef.name);
    // Another shard's: that shard's operator looks after it (a missing one: the default shard says so).
    if (!inShard(this.ctx, project ?? environment)) return;
    const deployment = informers.deployments.get(namespace, environment.spec.deploymentRef.name);
    const ready = decideEnvironment({
      environment,
      project,
      deployment,
      references: await this.references(environment),
    });
    const written = { ...environment, status: this.ctx.status.current(environment) };
    const record = deploymentRecord(written, deployment, (bundle) =>
      informers.bundles.get(namespace, bundle),
    );
    await this.ctx.status.writeReady('Environment', environment, ready, record);
    // Secrets and claims are not watched (that would mean reading every Secret): while one is
    // missing, look again soon.
    if (ready.status !== 'True' && REFERENCE_REASONS.has(ready.reason)) return { requeueAfterMs: RECHECK_MS };
    // And while they exist, now and then: one deleted later turns the Environment (and its
    // Webhooks) not ready before the next deploy needs it, not when its backup fails.
    if (environment.spec.database || environment.spec.backupStorage)
      return { requeueAfterMs: READY_RECHECK_MS };
  }

  /** The database Secret's keys and whether the backup claim exists, read at most every few seconds. */
  private async references(environment: EnvironmentObject): Promise<EnvironmentReferences> {
    const { namespace, name } = environment.metadata;
    const { database, backupStorage } = environment.spec;
    const key = objectKey(namespace, name);
    const names = `${database?.secretRef.name ?? ''}/${backupStorage?.persistentVolumeClaim.claimName ?? ''}`;
    const memo = this.memo.get(key);
    const now = this.ctx.now().getTime();
    if (memo && memo.names === names && now - memo.at < MEMO_MS) return memo.references;
    const { core } = this.ctx.clients;
    const orNull = <T>(p: Promise<T>) =>
      p.catch((err: unknown) => {
        if (isNotFound(err)) return null;
        throw err;
      });
    const [secret, claim] = await Promise.all([
      database ? orNull(core.readNamespacedSecret({ name: database.secretRef.name, namespace })) : undefined,
      backupStorage
        ? orNull(
            core.readNamespacedPersistentVolumeClaim({
              name: backupStorage.persistentVolumeClaim.claimName,
              namespace,
            }),
          )
        : undefined,
    ]);
    // Only the key names are kept: the operator never holds the database password.
    const references: EnvironmentReferences = {
      ...(database ? { databaseSecretKeys: secret ? Object.keys(secret.data ?? {}) : null } : {}),
      ...(backupStorage ? { backupClaimExists: claim !== null } : {}),
    };
    this.memo.set(key, { at: now, names, references });
    return references;
  }
}

const REFERENCE_REASONS = new Set<string>([
  // EnvironmentReasons: the Secret and claim a backup reads.
  'DatabaseSecretNotFound',
  'DatabaseSecretIncomplete',
  'BackupClaimNotFound',
]);
/** How soon a missing Secret or claim is looked for again. */
const RECHECK_MS = 10_000;
/** How often the references of a ready Environment are looked at again. */
const READY_RECHECK_MS = 5 * 60_000;
/** How long one reading of an environment's Secret and claim is used. */
const MEMO_MS = 5_000;

export function watchForEnvironments(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  informers.environments.onEvent((e) => controller.enqueue(e.metadata.namespace, e.metadata.name));
  informers.projects.onEvent((p) => {
    for (const e of informers.environments.byIndex(
      INDEX.project,
      objectKey(p.metadata.namespace, p.metadata.name),
    ))
      controller.enqueue(e.metadata.namespace, e.metadata.name);
  });
  // A bundle's Deployed condition is the outcome of the rollout this environment reports.
  informers.bundles.onEvent((b) => {
    const env = b.spec.deploy?.environmentRef.name;
    if (env) controller.enqueue(b.metadata.namespace, env);
  });
  informers.deployments.onEvent((d) => {
    const key = objectKey(d.metadata?.namespace, d.metadata?.name ?? '');
    for (const e of informers.environments.byIndex(INDEX.deployment, key))
      controller.enqueue(e.metadata.namespace, e.metadata.name);
  });
}
