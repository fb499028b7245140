// The Project controller: slug ownership across namespaces, the webhook Secret (generated and
// owned when none is referenced), the published webhook and upload-script URLs, and pruning
// of old bundles. Steps in order; Ready summarises.
import { inShard, takeOver } from '../shard.ts';
import type { V1Secret } from '@kubernetes/client-node';
import type { ProjectObject, ProjectReason } from '../../crds/index.ts';
import type { ConditionUpdate } from '../../lib/conditions.ts';
import { objectKey } from '../../lib/informer.ts';
import { isAlreadyExists, isNotFound } from '../../lib/kube.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { uploadScriptUrl, webhookAddress } from '../../rules/webhook-url.ts';
import { SLIPWAY_VERSION } from '../../lib/version.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../reconcile/controller.ts';
import { bundlesToPrune, claimSlug, cloneProblem, protectedBundles } from './decide.ts';
import { rememberPruned } from '../../rules/pruned-bundles.ts';
import { effectiveSlug } from '../../rules/webhook-url.ts';
import { GatewayAccess } from './gateway-access.ts';
import { generateSecretValue, generatedSecretRef, ownedBy, webhookSecret } from './secret.ts';

/** Referenced Secrets are not watched (that would mean reading every Secret): look again this often. */
export const PROJECT_RESYNC_MS = 5 * 60_000;
const SECRET_MISSING_RETRY_MS = 30_000;
const CREDENTIALS_MISSING_RETRY_MS = 10_000;

type SecretResult =
  | { ok: true; ref: { name: string; key: string }; value: Buffer }
  | { ok: false; reason: ProjectReason; message: string };

export class ProjectReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  private readonly gatewayAccess: GatewayAccess;
  /** By Project: its shard label when last looked at (shard.ts takeOver). */
  private readonly shardSeen = new Map<string, string>();

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
    this.gatewayAccess = new GatewayAccess(ctx);
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers, config } = this.ctx;
    // The gateway may read exactly the namespace's webhook Secrets (also after a Project is gone).
    await this.gatewayAccess.sync(namespace);
    const project = informers.projects.get(namespace, name);
    if (!project || project.metadata.deletionTimestamp) return;
    // Moved to this shard: its bundles that a stopped or removed shard still holds come along.
    await takeOver(this.ctx, project, this.shardSeen);
    // Another shard's (shard.ts): every Project is cached, for slug claims across shards.
    if (!inShard(this.ctx, project)) return;

    await this.pruneBundles(project);

    // Step: the slug (cluster-wide, oldest claim wins).
    const claim = claimSlug(project, informers.projects.byIndex(INDEX.slug, effectiveSlug(project)));
    let ready: ConditionUpdate;
    let published: Record<string, unknown>;
    let requeueAfterMs = PROJECT_RESYNC_MS;
    if (!claim.owner) {
      ready = { type: 'Ready', status: 'False', reason: claim.reason, message: claim.message };
      published = { slug: null, webhook: null };
    } else {
      // Step: the webhook secret, then the URL derived from it.
      const secret = await this.webhookSecret(project);
      if (!secret.ok) {
        ready = { type: 'Ready', status: 'False', reason: secret.reason, message: secret.message };
        published = { slug: claim.slug, webhook: null };
        requeueAfterMs = SECRET_MISSING_RETRY_MS;
      } else {
        // Step: the clone credentials. A build pod whose Secret volume is missing waits in
        // ContainerCreating until the build's deadline, saying nothing: say it here, and git
        // bundles wait for it (bundle/settings.ts). The webhook works meanwhile.
        const missing = await this.cloneProblem(project);
        ready = missing
          ? { type: 'Ready', status: 'False', ...missing }
          : {
              type: 'Ready',
              status: 'True',
              reason: 'WebhookReady',
              message: `webhook URL published for slug ${claim.slug}`,
            };
        if (missing) requeueAfterMs = CREDENTIALS_MISSING_RETRY_MS;
        published = {
          slug: claim.slug,
          webhook: {
            // Without its token: whoever may read the Secret derives it (kubectl slipway hook).
            url: webhookAddress(config.gatewayBaseUrl, claim.slug),
            secretRef: secret.ref,
          },
        };
      }
    }

    // Ready's message (an Event's note) never carries the URL: it is a credential.
    const fields = {
      ...published,
      uploadScriptUrl: uploadScriptUrl(config.gatewayBaseUrl),
      operatorVersion: SLIPWAY_VERSION,
    };
    await this.ctx.status.writeReady('Project', project, ready, fields);
    return { requeueAfterMs };
  }

  /** Why git builds cannot clone yet (decide.ts), from the credentials Secret the repository names. */
  private async cloneProblem(project: ProjectObject): Promise<ReturnType<typeof cloneProblem>> {
    const name = project.spec.repository?.credentialsSecretRef?.name;
    if (!name) return undefined;
    try {
      const secret = await this.ctx.clients.core.readNamespacedSecret({
        name,
        namespace: project.metadata.namespace,
      });
      return cloneProblem(project, secret);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      return cloneProblem(project, undefined);
    }
  }

  /** The referenced Secret, or the generated one (created on first need). */
  private async webhookSecret(project: ProjectObject): Promise<SecretResult> {
    const { core } = this.ctx.clients;
    const namespace = project.metadata.namespace;
    const read = async (secretName: string): Promise<V1Secret | undefined> => {
      try {
        return await core.readNamespacedSecret({ name: secretName, namespace });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    };
    const valueOf = (secret: V1Secret, key: string) => {
      const encoded = secret.data?.[key];
      return encoded ? Buffer.from(encoded, 'base64') : undefined;
    };

    const referenced = project.spec.webhookSecretRef;
    if (referenced) {
      const secret = await read(referenced.name);
      if (!secret)
        return { ok: false, reason: 'SecretNotFound', message: `Secret ${referenced.name} does not exist` };
      const value = valueOf(secret, referenced.key);
      if (!value || value.length === 0)
        return {
          ok: false,
          reason: 'SecretKeyNotFound',
          message: `Secret ${referenced.name} has no non-empty key ${referenced.key}`,
        };
      return { ok: true, ref: referenced, value };
    }

    const ref = generatedSecretRef(project);
    let secret = await read(ref.name);
    if (!secret) {
      try {
        secret = await core.createNamespacedSecret({
          namespace,
          body: webhookSecret(project, generateSecretValue()),
        });
        void this.ctx.events.normal(
          { apiVersion: project.apiVersion, kind: 'Project', metadata: project.metadata },
          'SecretGenerated',
          `generated webhook Secret ${ref.name}`,
        );
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        secret = await read(ref.name);
      }
    }
    if (!secret || !ownedBy(secret, project))
      return {
        ok: false,
        reason: 'SecretConflict',
        message: `Secret ${ref.name} exists but was not generated for this project; delete it or set spec.webhookSecretRef`,
      };
    const value = valueOf(secret, ref.key);
    if (!value || value.length === 0)
      return { ok: false, reason: 'SecretKeyNotFound', message: `Secret ${ref.name} has no key ${ref.key}` };
    return { ok: true, ref, value };
  }

  /** Keep bundleHistoryLimit finished bundles; never one an environment runs or rolls out. */
  private async pruneBundles(project: ProjectObject): Promise<void> {
    const { informers, slipway, events, log } = this.ctx;
    const { namespace, name } = project.metadata;
    const key = objectKey(namespace, name);
    // A preview's bundles go with it (preview/controller.ts keeps them few).
    const bundles = informers.bundles
      .byIndex(INDEX.project, key)
      .filter((b) => b.spec.trigger.type !== 'PullRequest');
    if (bundles.filter(isFinished).length <= project.spec.bundleHistoryLimit) return;
    const environments = informers.environments.byIndex(INDEX.project, key);
    const keep = protectedBundles(bundles, environments, (env) =>
      informers.deployments.get(namespace, env.spec.deploymentRef.name),
    );
    // What a promotion still to come will roll out.
    for (const p of informers.promotions.byIndex(INDEX.project, key)) {
      const waits = p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
      const promoted = p.status?.bundle ?? p.spec.bundleRef?.name;
      if (waits && promoted) keep.add(promoted);
    }
    const prune = bundlesToPrune(bundles, project.spec.bundleHistoryLimit, keep);
    if (prune.length === 0) return;
    // Remembered before they go (rules/pruned-bundles.ts): a replayed delivery of one builds nothing.
    const remembered = this.ctx.status.current(project)?.prunedBundles;
    const names = prune.map((b) => b.metadata.name);
    await this.ctx.status.write('Project', project, {
      writer: 'project',
      fields: { prunedBundles: rememberPruned(remembered, names, this.ctx.now()) },
      conditions: [],
    });
    for (const bundle of prune) {
      try {
        await slipway.delete('Bundle', namespace, bundle.metadata.name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    log.info({ project: key, pruned: prune.length }, 'pruned old bundles');
    void events.normal(
      { apiVersion: project.apiVersion, kind: 'Project', metadata: project.metadata },
      'BundlesPruned',
      `deleted ${prune.length} finished bundles beyond bundleHistoryLimit ${project.spec.bundleHistoryLimit}`,
    );
  }
}

export function watchForProjects(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const enqueueProject = (namespace: string | undefined, name: string | undefined) =>
    controller.enqueue(namespace, name);
  informers.projects.onEvent((p) => {
    enqueueProject(p.metadata.namespace, p.metadata.name);
    // Another project's claim on the slug may have started or ended.
    for (const other of informers.projects.byIndex(INDEX.slug, effectiveSlug(p)))
      enqueueProject(other.metadata.namespace, other.metadata.name);
    for (const other of informers.projects.list())
      if (other.status?.conditions?.some((c) => c.type === 'Ready' && c.reason === 'SlugConflict'))
        enqueueProject(other.metadata.namespace, other.metadata.name);
  });
  informers.bundles.onEvent((b, type) => {
    // Only finished or removed bundles change what history pruning keeps.
    if (type === 'delete' || isFinished(b)) enqueueProject(b.metadata.namespace, b.spec.projectRef.name);
  });
  informers.environments.onEvent((e) => enqueueProject(e.metadata.namespace, e.spec.projectRef.name));
}
