// The Bundle controller: gathers state, asks decide.ts what to do, does that one thing, then
// writes the status (and the environment's) in one deferred patch and records the Events.
//
// Decisions come from the informer caches. Any decision that acts or ends the chain is taken
// again on state read straight from the API server, under a per-project lock, so a lagging
// cache can neither start a build over the project's limit nor touch a Deployment that
// another bundle is rolling out; the Deployment patch also carries the resourceVersion it
// was decided on.
import { PatchStrategy, setHeaderOptions, type V1Deployment, type V1Job } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import { isAlreadyExists, isNotFound } from '../../lib/kube.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import { stepDuration, stepTotal } from '../metrics.ts';
import { ANNOTATION_BUNDLE, LABEL_PROJECT, LABEL_STEP, MANAGED_BY, labelValue } from '../../crds/labels.ts';
import { ANNOTATION_ROLLOUT_STARTED, MANAGER, backupJobName, buildJobName, bundleImage } from '../names.ts';
import type { Controller, Reconciler } from '../runtime/controller.ts';
import { KeyedMutex } from '../runtime/keyed-mutex.ts';
import { decideBundle, type BundleAction, type BundleDecision, type BundleInputs } from './decide.ts';
import { signArchiveUrl } from '../../crds/archive-url.ts';
import { backupJob, backupLocation, buildJob } from './jobs.ts';
import { failedContainerOutput, isFinished, jobState, timeMs } from './state.ts';
import { bundleStatusUpdate, transitionEvents } from './status.ts';

/** A build Job's archive URL stays valid this long past its build timeout (slow pod starts). */
const ARCHIVE_URL_GRACE_SECONDS = 15 * 60;
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export class BundleReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  private readonly locks = new KeyedMutex();

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const bundle = this.ctx.informers.bundles.get(namespace, name);
    if (!bundle) return;
    const cached = this.gatherFromCache(bundle);
    const first = decideBundle(cached);
    if (first.skip) return;
    if (first.action.type === 'none' && first.outcome !== 'finished') return this.write(cached, first);
    // Acting or ending the chain: decide again on fresh state, one bundle of the project at a time.
    return this.locks.run(objectKey(namespace, bundle.spec.projectRef.name), async () => {
      const live = await this.gatherLive(cached);
      const decision = decideBundle(live);
      if (decision.skip) return;
      await this.act(decision.action, live);
      return this.write(live, decision);
    });
  }

  private gatherFromCache(bundle: BundleObject): BundleInputs {
    const { informers, config } = this.ctx;
    const { namespace, name } = bundle.metadata;
    const projectName = bundle.spec.projectRef.name;
    const envName = bundle.spec.deploy?.environmentRef.name;
    const environment = envName ? informers.environments.get(namespace, envName) : undefined;
    const deployment = environment
      ? informers.deployments.get(namespace, environment.spec.deploymentRef.name)
      : undefined;
    const buildJobObj = informers.jobs.get(namespace, buildJobName(name));
    const runningBuilds = informers.jobs
      .byIndex(INDEX.project, objectKey(namespace, labelValue(projectName)))
      .filter(
        (j) =>
          j.metadata?.labels?.[LABEL_STEP] === 'build' &&
          j.metadata?.name !== buildJobName(name) &&
          jobState(j).state === 'running',
      ).length;
    return {
      bundle,
      project: informers.projects.get(namespace, projectName),
      environment,
      deployment,
      buildJob: buildJobObj,
      backupJob: informers.jobs.get(namespace, backupJobName(name)),
      projectBundles: informers.bundles.byIndex(INDEX.project, objectKey(namespace, projectName)),
      runningBuilds,
      defaultBuildConcurrency: config.buildConcurrency,
      image: bundleImage(config.registry, namespace, projectName, name),
      backupLocation: environment ? backupLocation(environment, name) : undefined,
      now: this.ctx.now(),
    };
  }

  /** The Jobs, the Deployment and the running builds, read from the API server. */
  private async gatherLive(cached: BundleInputs): Promise<BundleInputs> {
    const { batch, apps } = this.ctx.clients;
    const { namespace, name } = cached.bundle.metadata;
    const orMissing = <T>(p: Promise<T>): Promise<T | undefined> =>
      p.catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    const deploymentName = cached.environment?.spec.deploymentRef.name;
    const [buildJobObj, backupJobObj, deployment, projectJobs] = await Promise.all([
      orMissing<V1Job>(batch.readNamespacedJob({ name: buildJobName(name), namespace })),
      orMissing<V1Job>(batch.readNamespacedJob({ name: backupJobName(name), namespace })),
      deploymentName
        ? orMissing<V1Deployment>(apps.readNamespacedDeployment({ name: deploymentName, namespace }))
        : Promise.resolve(undefined),
      batch.listNamespacedJob({
        namespace,
        labelSelector: `${MANAGED_BY}=${MANAGER},${LABEL_PROJECT}=${labelValue(cached.bundle.spec.projectRef.name)},${LABEL_STEP}=build`,
      }),
    ]);
    const runningBuilds = projectJobs.items.filter(
      (j) => j.metadata?.name !== buildJobName(name) && jobState(j).state === 'running',
    ).length;
    const [buildOutput, backupOutput] = await Promise.all(
      [buildJobObj, backupJobObj].map((job) => this.failedOutput(namespace, job)),
    );
    return {
      ...cached,
      buildJob: buildJobObj,
      backupJob: backupJobObj,
      deployment,
      runningBuilds,
      failedOutput: { build: buildOutput, backup: backupOutput },
      now: this.ctx.now(),
    };
  }

  /** For a failed Job: its failed container's last log lines, read once as the chain ends. */
  private async failedOutput(namespace: string, job: V1Job | undefined): Promise<string | undefined> {
    if (!job || jobState(job).state !== 'failed') return undefined;
    try {
      const pods = await this.ctx.clients.core.listNamespacedPod({
        namespace,
        labelSelector: `batch.kubernetes.io/job-name=${job.metadata!.name}`,
      });
      return failedContainerOutput(pods.items);
    } catch (err) {
      // The cause is a nicety: without it the Job's own reason still explains the failure.
      this.ctx.log.warn({ err, job: job.metadata?.name }, 'reading the pods of a failed Job failed');
      return undefined;
    }
  }

  private async act(action: BundleAction, input: BundleInputs): Promise<void> {
    const { batch, apps } = this.ctx.clients;
    const { config } = this.ctx;
    const { bundle } = input;
    const namespace = bundle.metadata.namespace;
    const create = async (job: V1Job) => {
      try {
        await batch.createNamespacedJob({ namespace, body: job });
      } catch (err) {
        // Deterministic names: it exists because an earlier run (maybe before a restart) made it.
        if (!isAlreadyExists(err)) throw err;
      }
    };
    switch (action.type) {
      case 'none':
        return;
      case 'createBuildJob':
        return create(buildJob(bundle, input.project!, input.image, config, this.signedArchiveUrl(bundle)));
      case 'createBackupJob':
        return create(backupJob(bundle, input.environment!, config));
      case 'stopJobs': {
        for (const job of [input.buildJob, input.backupJob]) {
          if (!job?.metadata?.name || jobState(job).state !== 'running') continue;
          await batch
            .deleteNamespacedJob({ name: job.metadata.name, namespace, propagationPolicy: 'Background' })
            .catch((err: unknown) => {
              if (!isNotFound(err)) throw err;
            });
        }
        return;
      }
      case 'startRollout': {
        const deployment = input.deployment!;
        const startedAt = input.now.toISOString();
        await apps.patchNamespacedDeployment(
          {
            name: deployment.metadata!.name!,
            namespace,
            body: {
              metadata: {
                // A precondition: the patch fails with 409 if the Deployment changed since we read it.
                resourceVersion: deployment.metadata!.resourceVersion,
                annotations: {
                  [ANNOTATION_BUNDLE]: bundle.metadata.name,
                  [ANNOTATION_ROLLOUT_STARTED]: startedAt,
                },
              },
              spec: {
                template: {
                  metadata: { annotations: { [ANNOTATION_BUNDLE]: bundle.metadata.name } },
                  spec: {
                    containers: [{ name: action.container, image: bundle.status?.image ?? input.image }],
                  },
                },
              },
            },
          },
          strategicMerge,
        );
        return;
      }
    }
  }

  private async write(input: BundleInputs, decision: BundleDecision): Promise<HandlerResult | void> {
    const { status: writer, log } = this.ctx;
    const { bundle } = input;
    const { namespace, name } = bundle.metadata;
    const written = await writer.write(
      'Bundle',
      bundle,
      bundleStatusUpdate(bundle, decision),
      transitionEvents,
    );
    if (written) {
      this.observeSteps(input, written as NonNullable<BundleObject['status']>);
      if (decision.outcome === 'finished')
        log.info({ bundle: `${namespace}/${name}`, phase: decision.phase }, 'bundle finished');
    }
    return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
  }

  /** Step durations and outcomes, counted once: when a step's condition leaves Unknown. */
  private observeSteps(input: BundleInputs, status: NonNullable<BundleObject['status']>): void {
    const before = input.bundle.status?.conditions ?? [];
    const steps: Array<[string, string, number | undefined]> = [
      ['Built', 'build', timeMs(input.buildJob?.metadata?.creationTimestamp)],
      ['BackedUp', 'backup', timeMs(input.backupJob?.metadata?.creationTimestamp)],
      ['Deployed', 'deploy', timeMs(input.deployment?.metadata?.annotations?.[ANNOTATION_ROLLOUT_STARTED])],
    ];
    for (const [type, step, started] of steps) {
      const now = status.conditions?.find((c) => c.type === type);
      const old = before.find((c) => c.type === type);
      if (!now || now.status === 'Unknown' || old?.status === now.status) continue;
      if (now.reason === 'Superseded' || started === undefined) continue;
      const outcome = now.status === 'True' ? 'succeeded' : 'failed';
      stepTotal.inc({ step, outcome });
      stepDuration.observe({ step, outcome }, Math.max(0, input.now.getTime() - started) / 1000);
    }
  }
  /**
   * The gateway serves uploaded archives only at signed URLs. The Bundle spec keeps the stable,
   * unsigned one (it is immutable); each build Job gets one signed until its build timeout.
   */
  private signedArchiveUrl(bundle: BundleObject): string | undefined {
    const { archiveUrlKey, buildTimeoutSeconds } = this.ctx.config;
    const url = bundle.spec.source.archive?.url;
    if (!url || !archiveUrlKey) return undefined;
    const expires = new Date(
      this.ctx.now().getTime() + (buildTimeoutSeconds + ARCHIVE_URL_GRACE_SECONDS) * 1000,
    );
    return signArchiveUrl(url, archiveUrlKey, expires);
  }
}

/** Which bundles to look at again when something they depend on changes. */
export function watchForBundles(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const enqueue = (b: BundleObject) => controller.enqueue(b.metadata.namespace, b.metadata.name);
  const unfinished = (index: string, key: string) =>
    informers.bundles.byIndex(index, key).filter((b) => !isFinished(b));

  informers.bundles.onEvent((b) => {
    enqueue(b);
    // A bundle that moves on may free a build slot or an environment for its siblings.
    for (const sibling of unfinished(INDEX.project, objectKey(b.metadata.namespace, b.spec.projectRef.name)))
      if (sibling.metadata.name !== b.metadata.name) enqueue(sibling);
  });
  informers.jobs.onEvent((j) => {
    const owner = j.metadata?.ownerReferences?.find((o) => o.kind === 'Bundle');
    controller.enqueue(j.metadata?.namespace, owner?.name);
  });
  informers.projects.onEvent((p) => {
    for (const b of unfinished(INDEX.project, objectKey(p.metadata.namespace, p.metadata.name))) enqueue(b);
  });
  informers.environments.onEvent((e) => {
    for (const b of unfinished(INDEX.environment, objectKey(e.metadata.namespace, e.metadata.name)))
      enqueue(b);
  });
  informers.deployments.onEvent((d) => {
    const namespace = d.metadata?.namespace ?? '';
    for (const e of informers.environments.byIndex(
      INDEX.deployment,
      objectKey(namespace, d.metadata?.name ?? ''),
    ))
      for (const b of unfinished(INDEX.environment, objectKey(namespace, e.metadata.name))) enqueue(b);
  });
}

/** A merge patch applied to a status: null removes a field. */
