// The Bundle controller: gathers state, asks decide.ts what to do, does that one thing, then
// writes the status (and the environment's) in one deferred patch and records the Events.
//
// Decisions come from the informer caches. Any decision that acts or ends the chain is taken
// again on state read straight from the API server, holding the target Deployment
// (contendedBy), so a lagging cache cannot touch a Deployment that another bundle is rolling
// out; the Deployment patch also carries the resourceVersion it was decided on. Running builds
// are the cache's plus the build Jobs this process created that the cache does not show yet
// (build-expectations.ts), so a lagging cache cannot start a build over the project's limit.
import { PatchStrategy, setHeaderOptions, type V1Deployment, type V1Job } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { objectKey } from '../../lib/informer.ts';
import { ignoreNotFound, isAlreadyExists, isNotFound, mergePatch } from '../../lib/kube.ts';
import { ActRefused, isRefusal } from './refusal.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import { stepDuration, stepTotal } from '../metrics.ts';
import {
  ANNOTATION_BUNDLE,
  LABEL_BUNDLE,
  LABEL_PROJECT,
  LABEL_STEP,
  boundedName,
  labelValue,
} from '../../crds/labels.ts';
import { ANNOTATION_ROLLOUT_STARTED, backupJobName, buildJobName, bundleImage } from '../names.ts';
import type { Controller, Reconciler } from '../runtime/controller.ts';
import { KeyedMutex } from '../runtime/keyed-mutex.ts';
import { BuildExpectations } from './build-expectations.ts';
import {
  contendedBy,
  decideBundle,
  podlessJobs,
  type BundleAction,
  type BundleDecision,
  type BundleInputs,
  type BundlePods,
} from './decide.ts';

/** The label the Job controller puts on a Job's pods. */
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
/** How long a new Job may be without a pod before its FailedCreate Events are read. */
const NO_POD_GRACE_MS = 3_000;
import { signArchiveUrl } from '../../crds/archive-url.ts';
import { rollbackBundle } from '../../crds/rollback.ts';
import { backupJob, backupLocation, buildJob } from './jobs.ts';
import { isFinished } from '../../crds/bundle-outcome.ts';
import { failedContainerOutput, jobState, timeMs } from './state.ts';
import { bundleStatusUpdate, transitionEvents } from './status.ts';
import { FINISHED_LABEL_PATCH, retirement } from './retire.ts';

/** A build Job's archive URL stays valid this long past its build timeout (slow pod starts). */
const ARCHIVE_URL_GRACE_SECONDS = 15 * 60;
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export class BundleReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  private readonly locks = new KeyedMutex();
  private readonly expectations = new BuildExpectations();
  /** Per Job: when its FailedCreate Events were last read, and what they said. */
  private readonly refusals = new Map<string, { at: number; message: string | undefined }>();

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
    // A build Job the cache shows (or no longer shows) is counted from the cache.
    ctx.informers.jobs.onEvent((job) => {
      const project = job.metadata?.labels?.[LABEL_PROJECT];
      if (project && job.metadata?.name)
        this.expectations.forget(objectKey(job.metadata.namespace, project), job.metadata.name);
    });
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const bundle = this.ctx.informers.bundles.get(namespace, name);
    if (!bundle) return;
    try {
      return await this.reconcileBundle(bundle);
    } catch (err) {
      if (!(err instanceof ActRefused)) throw err;
      await this.writeRefusal(bundle, err);
      throw err.apiError; // retried with back-off
    }
  }

  /**
   * Ready=False/Refused with the API server's message, written once: while the bundle says
   * Refused already, a new message (a quota's counts) is not worth a write, nor the update event
   * that would retry the bundle at once, past its back-off.
   */
  private async writeRefusal(bundle: BundleObject, refusal: ActRefused): Promise<void> {
    const ready = findCondition(this.ctx.status.current(bundle)?.conditions, 'Ready');
    if (ready?.reason === 'Refused') return;
    await this.ctx.status
      .write('Bundle', bundle, {
        conditions: [{ type: 'Ready', status: 'False', reason: 'Refused', message: refusal.message }],
      })
      .catch((err: unknown) =>
        this.ctx.log.warn(
          { err, bundle: objectKey(bundle.metadata.namespace, bundle.metadata.name) },
          'writing a refusal failed',
        ),
      );
  }

  private async reconcileBundle(bundle: BundleObject): Promise<HandlerResult | void> {
    const cached = await this.withRefusedPods(this.gatherFromCache(bundle));
    const first = this.decideCounting(cached);
    if (first.skip) return this.retire(cached);
    if (first.action.type === 'none' && first.outcome !== 'finished') return this.write(cached, first);
    // Starting a build needs no fresh read: its slot is counted and reserved above, and the
    // Job's deterministic name makes the create its own check ("already exists" = made before).
    if (first.action.type === 'createBuildJob') return this.actAndWrite(cached, first);
    // Any other act, or the end of the chain: decide again on fresh state, holding the
    // Deployment the bundle rolls out to. The status is written after the lock is released:
    // what the next holder decides on is the API server's state, never this bundle's status.
    const acted = await this.locks.runAll(contendedBy(cached), async () => {
      let live = await this.gatherLive(cached);
      let decision = this.decideCounting(live);
      if (decision.action.type === 'rollBack') {
        // The cache may not show a push that just arrived: a rollback must never replace it.
        live = { ...live, projectBundles: await this.projectBundlesLive(bundle) };
        decision = this.decideCounting(live);
      }
      if (decision.skip) return undefined;
      await this.actExpecting(decision, live);
      return { live, decision };
    });
    return acted && this.write(acted.live, acted.decision);
  }

  /**
   * A finished bundle's ended Jobs are labelled, and so leave the cache (retire.ts).
   * Housekeeping: a refused patch (a Role without the patch verb) is logged, never retried.
   */
  private async retire(input: BundleInputs): Promise<void> {
    const { namespace, name } = input.bundle.metadata;
    const { batch } = this.ctx.clients;
    try {
      for (const job of retirement(input))
        await batch
          .patchNamespacedJob({ name: job, namespace, body: FINISHED_LABEL_PATCH }, mergePatch)
          .catch(ignoreNotFound);
    } catch (err) {
      this.ctx.log.warn({ err, bundle: `${namespace}/${name}` }, "labelling a finished bundle's Jobs failed");
    }
  }

  private async actAndWrite(input: BundleInputs, decision: BundleDecision): Promise<HandlerResult | void> {
    await this.actExpecting(decision, input);
    return this.write(input, decision);
  }

  /**
   * Acts; a build Job that could not be created is no longer expected. An act the API server
   * refuses (a quota, an admission policy, a rejected object) becomes ActRefused: reconcile()
   * writes it into the Bundle once the Deployment lock is released, instead of the bundle keeping
   * its last step while the retries go on in the operator's log.
   */
  private async actExpecting(decision: BundleDecision, input: BundleInputs): Promise<void> {
    try {
      await this.act(decision.action, input);
    } catch (err) {
      if (decision.action.type === 'createBuildJob')
        this.expectations.forget(this.projectKey(input.bundle), buildJobName(input.bundle.metadata.name));
      throw isRefusal(err) ? new ActRefused(decision.action.type, err) : err;
    }
  }

  /**
   * Decides with the running builds counted now, and expects the build Job it decides to create
   * before anything else can count: no await between the count and the expectation.
   */
  private decideCounting(input: BundleInputs): BundleDecision {
    const live = { ...input, ...this.projectBuilds(input.bundle) };
    const decision = decideBundle(live);
    if (decision.action.type === 'createBuildJob')
      this.expectations.expect(this.projectKey(input.bundle), buildJobName(input.bundle.metadata.name));
    return decision;
  }

  private projectKey(bundle: BundleObject): string {
    return objectKey(bundle.metadata.namespace, labelValue(bundle.spec.projectRef.name));
  }

  /**
   * The project's build Jobs but this bundle's, from the cache and those expected: how many are
   * running, and the names of all of them (whatever their state).
   */
  private projectBuilds(bundle: BundleObject): Pick<BundleInputs, 'runningBuilds' | 'startedBuilds'> {
    const { jobs } = this.ctx.informers;
    const own = buildJobName(bundle.metadata.name);
    const key = this.projectKey(bundle);
    const namespace = bundle.metadata.namespace;
    const startedBuilds = new Set<string>();
    let runningBuilds = 0;
    for (const job of jobs.byIndex(INDEX.project, key)) {
      const name = job.metadata?.name;
      if (job.metadata?.labels?.[LABEL_STEP] !== 'build' || !name || name === own) continue;
      startedBuilds.add(name);
      if (jobState(job).state === 'running') runningBuilds += 1;
    }
    for (const name of this.expectations.pending(key, (job) => job === own || !!jobs.get(namespace, job))) {
      startedBuilds.add(name);
      runningBuilds += 1;
    }
    return { runningBuilds, startedBuilds };
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
    return {
      bundle,
      project: informers.projects.get(namespace, projectName),
      environment,
      deployment,
      buildJob: buildJobObj,
      backupJob: informers.jobs.get(namespace, backupJobName(name)),
      projectBundles: informers.bundles.byIndex(INDEX.project, objectKey(namespace, projectName)),
      ...this.projectBuilds(bundle),
      defaultBuildConcurrency: config.buildConcurrency,
      image: bundleImage(config.registry, namespace, projectName, name),
      backupLocation: environment ? backupLocation(environment, name) : undefined,
      pods: this.podsOf(namespace, name),
      now: this.ctx.now(),
    };
  }

  /** The project's bundles as the API server has them now. */
  private async projectBundlesLive(bundle: BundleObject): Promise<BundleObject[]> {
    const all = await this.ctx.slipway.list<BundleObject>('Bundle', bundle.metadata.namespace);
    return all.filter((b) => b.spec.projectRef.name === bundle.spec.projectRef.name);
  }

  /** The newest FailedCreate Event of a Job, read at most every few seconds per Job. */
  private async failedCreate(namespace: string, job: string, now: Date): Promise<string | undefined> {
    const key = `${namespace}/${job}`;
    const memo = this.refusals.get(key);
    if (memo && now.getTime() - memo.at < NO_POD_GRACE_MS) return memo.message;
    let message: string | undefined;
    try {
      const events = await this.ctx.clients.core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.kind=Job,involvedObject.name=${job},reason=FailedCreate`,
      });
      message = events.items.sort(
        (a, b) =>
          (timeMs(b.lastTimestamp ?? b.eventTime) ?? 0) - (timeMs(a.lastTimestamp ?? a.eventTime) ?? 0),
      )[0]?.message;
    } catch (err) {
      // The cause is a nicety (the Job's deadline still ends it); say why it is missing.
      this.ctx.log.warn({ err, job: key }, 'reading the FailedCreate Events of a Job failed');
    }
    if (this.refusals.size > 1000) this.refusals.clear();
    this.refusals.set(key, { at: now.getTime(), message });
    return message;
  }

  /** The bundle's pods in the cache, by the Job (or rollout) they belong to. */
  private podsOf(namespace: string, name: string): BundlePods {
    const pods = this.ctx.informers.pods.byIndex(INDEX.bundle, objectKey(namespace, labelValue(name)));
    const ofJob = (job: string) => pods.filter((p) => p.metadata?.labels?.[JOB_NAME_LABEL] === job);
    return {
      build: ofJob(buildJobName(name)),
      backup: ofJob(backupJobName(name)),
      rollout: pods.filter((p) => p.metadata?.labels?.[JOB_NAME_LABEL] === undefined),
    };
  }

  /**
   * A running Job without a pod for a few seconds may have had it refused (quota, Pod Security):
   * the Job controller says so only in a FailedCreate Event, read here in that case alone.
   */
  private async withRefusedPods(input: BundleInputs): Promise<BundleInputs> {
    const refusedPods: NonNullable<BundleInputs['refusedPods']> = {};
    for (const { step, job } of podlessJobs(input)) {
      const age = input.now.getTime() - (timeMs(job.metadata?.creationTimestamp) ?? input.now.getTime());
      if (age < NO_POD_GRACE_MS) continue;
      const refusal = await this.failedCreate(
        input.bundle.metadata.namespace,
        job.metadata!.name!,
        input.now,
      );
      if (refusal) refusedPods[step] = refusal;
    }
    return Object.keys(refusedPods).length > 0 ? { ...input, refusedPods } : input;
  }

  /** The Jobs and the Deployment, read from the API server. */
  private async gatherLive(cached: BundleInputs): Promise<BundleInputs> {
    const { batch, apps } = this.ctx.clients;
    const { namespace, name } = cached.bundle.metadata;
    const orMissing = <T>(p: Promise<T>): Promise<T | undefined> =>
      p.catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    const deploymentName = cached.environment?.spec.deploymentRef.name;
    // A bundle that backs nothing up has no backup Job to read, unless the cache shows one.
    const backs = cached.bundle.spec.deploy?.backupBeforeDeploy || cached.backupJob !== undefined;
    const [buildJobObj, backupJobObj, deployment] = await Promise.all([
      orMissing<V1Job>(batch.readNamespacedJob({ name: buildJobName(name), namespace })),
      backs
        ? orMissing<V1Job>(batch.readNamespacedJob({ name: backupJobName(name), namespace }))
        : Promise.resolve(undefined),
      deploymentName
        ? orMissing<V1Deployment>(apps.readNamespacedDeployment({ name: deploymentName, namespace }))
        : Promise.resolve(undefined),
    ]);
    const [buildOutput, backupOutput] = await Promise.all(
      [buildJobObj, backupJobObj].map((job) => this.failedOutput(namespace, job)),
    );
    return {
      ...cached,
      buildJob: buildJobObj,
      backupJob: backupJobObj,
      deployment,
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
            .catch(ignoreNotFound);
        }
        return;
      }
      case 'rollBack': {
        const rollback = rollbackBundle({
          namespace,
          project: bundle.spec.projectRef.name,
          projectUid: input.project?.metadata.uid,
          to: action.to,
          environment: action.environment,
          // Deterministic: a second decision (after a restart) finds the first one's bundle.
          name: boundedName(bundle.metadata.name, 'rollback', 253),
          comment: `automatic rollback to bundle ${action.to}: the rollout of ${bundle.metadata.name} failed`,
        });
        try {
          await this.ctx.slipway.create('Bundle', rollback as BundleObject & Record<string, unknown>);
        } catch (err) {
          if (!isAlreadyExists(err)) throw err;
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
                  // The label lets the operator watch this rollout's pods (and only them).
                  metadata: {
                    annotations: { [ANNOTATION_BUNDLE]: bundle.metadata.name },
                    labels: { [LABEL_BUNDLE]: labelValue(bundle.metadata.name) },
                  },
                  spec: {
                    containers: [{ name: action.container, image: action.image }],
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

/** Queued for a build slot, waiting for its environment, or not yet looked at. */
function waitsForSiblings(b: BundleObject): boolean {
  const phase = b.status?.phase;
  return (
    phase === undefined ||
    phase === 'Queued' ||
    findCondition(b.status?.conditions, 'Ready')?.reason === 'WaitingForEnvironment'
  );
}

/** Which bundles to look at again when something they depend on changes. */
export function watchForBundles(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const enqueue = (b: BundleObject) => controller.enqueue(b.metadata.namespace, b.metadata.name);
  const unfinished = (index: string, key: string) =>
    informers.bundles.byIndex(index, key).filter((b) => !isFinished(b));

  informers.bundles.onEvent((b, type) => {
    // A push nobody has looked at goes ahead of the follow-ups of running chains: starting its
    // build is what its author waits for (with ten environments at once, four busy workers
    // made new bundles wait up to 400 ms in the queue).
    if (type === 'add' && !b.status) controller.enqueueAhead(b.metadata.namespace, b.metadata.name);
    else enqueue(b);
    // A new bundle may supersede its siblings, a deleted one free what it held; any other
    // change matters only to the siblings waiting for a build slot or an environment (each
    // status write enqueuing every unfinished sibling made ten environments' bundles crowd
    // the queue).
    for (const sibling of unfinished(INDEX.project, objectKey(b.metadata.namespace, b.spec.projectRef.name)))
      if (sibling.metadata.name !== b.metadata.name && (type !== 'update' || waitsForSiblings(sibling)))
        enqueue(sibling);
  });
  informers.pods.onEvent((p) => {
    const label = p.metadata?.labels?.[LABEL_BUNDLE];
    if (!label) return;
    for (const b of informers.bundles.byIndex(INDEX.bundleLabel, objectKey(p.metadata?.namespace, label)))
      if (!isFinished(b)) enqueue(b);
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
