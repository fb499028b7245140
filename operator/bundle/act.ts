// Does the one thing a decision asks for: create the build or backup Job, stop a superseded
// bundle's Jobs, create the automatic rollback's bundle, or start the rollout. Every create has
// a deterministic name, so "already exists" means an earlier run (maybe before a restart) made it.
import type { V1Job } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { LABEL_SHARD, boundedName } from '../../crds/labels.ts';
import { ignoreNotFound, isAlreadyExists } from '../../lib/kube.ts';
import { signArchiveUrl } from '../../rules/archive-url.ts';
import { rollbackBundle } from '../../rules/rollback.ts';
import type { OperatorContext } from '../context.ts';
import type { BundleAction, BundleInputs } from './decision.ts';
import { backupJob } from '../jobs/backup-job.ts';
import { buildJob } from '../jobs/build-job.ts';
import { copyBuildSecrets, deleteBuildSecrets, holdForBuild } from './build-namespace.ts';
import { startRollout } from './rollout.ts';
import { jobState, ownedBy } from './workload-state.ts';

/** A build Job's archive URL stays valid this long past its build timeout (slow pod starts). */
const ARCHIVE_URL_GRACE_SECONDS = 15 * 60;

/** Does the action; returns the bundle when the act changed it (its finalizer), for the status write. */
export async function act(
  ctx: OperatorContext,
  action: BundleAction,
  input: BundleInputs,
): Promise<BundleObject | void> {
  const { batch, apps } = ctx.clients;
  const { bundle } = input;
  const namespace = bundle.metadata.namespace;
  const create = (job: V1Job) =>
    ignoreAlreadyExists(batch.createNamespacedJob({ namespace: job.metadata!.namespace!, body: job }));
  switch (action.type) {
    case 'none':
      return;
    case 'createBuildJob': {
      const held = await holdForBuild(ctx, bundle);
      const secrets = await copyBuildSecrets(ctx, held, input.project!);
      const archiveUrl = signedArchiveUrl(ctx, bundle);
      await create(buildJob(held, input.project!, input.image, ctx.config, { secrets, archiveUrl }));
      return held;
    }
    case 'createBackupJob':
      return create(backupJob(bundle, input.environment!, ctx.config));
    case 'stopJobs': {
      for (const job of [input.buildJob, input.backupJob]) {
        if (!job?.metadata?.name || !ownedBy(job, bundle) || jobState(job).state !== 'running') continue;
        await batch
          .deleteNamespacedJob({
            name: job.metadata.name,
            namespace: job.metadata.namespace!,
            propagationPolicy: 'Background',
          })
          .catch(ignoreNotFound);
      }
      // A stopped build's copies of credentials go with it.
      if (input.buildJob) await deleteBuildSecrets(ctx, namespace, bundle.metadata.name);
      return;
    }
    case 'rollBack': {
      const rollback = rollbackBundle({
        namespace,
        project: bundle.spec.projectRef.name,
        projectUid: input.project?.metadata.uid,
        projectShard: input.project?.metadata.labels?.[LABEL_SHARD],
        to: action.to,
        environment: action.environment,
        // Deterministic: a second decision (after a restart) finds the first one's bundle.
        name: boundedName(bundle.metadata.name, 'rollback', 253),
        comment: `automatic rollback to bundle ${action.to}: the rollout of ${bundle.metadata.name} failed`,
      });
      return ignoreAlreadyExists(
        ctx.slipway.create('Bundle', rollback as BundleObject & Record<string, unknown>),
      );
    }
    case 'startRollout':
      return startRollout(apps, {
        bundle,
        deployment: input.deployment!,
        container: action.container,
        image: action.image,
        startedAt: input.now,
        registry: ctx.config.registry,
      });
  }
}

async function ignoreAlreadyExists(request: Promise<unknown>): Promise<void> {
  try {
    await request;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/**
 * The gateway serves uploaded archives only at signed URLs. The Bundle spec keeps the stable,
 * unsigned one (it is immutable); each build Job gets one signed until its build timeout.
 */
function signedArchiveUrl(ctx: OperatorContext, bundle: BundleObject): string | undefined {
  const { archiveUrlKey, buildTimeoutSeconds } = ctx.config;
  const url = bundle.spec.source.archive?.url;
  if (!url || !archiveUrlKey) return undefined;
  const expires = new Date(ctx.now().getTime() + (buildTimeoutSeconds + ARCHIVE_URL_GRACE_SECONDS) * 1000);
  return signArchiveUrl(url, archiveUrlKey, expires);
}
