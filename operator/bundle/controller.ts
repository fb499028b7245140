// The Bundle controller: gathers state, asks decide.ts what to do, does that one thing, then
// writes the status (and the environment's) in one deferred patch and records the Events.
//
// Decisions come from the informer caches. Any decision that acts or ends the chain is taken
// again on state read straight from the API server, holding the target Deployment
// (contendedBy), so a lagging cache cannot touch a Deployment that another bundle is rolling
// out; the Deployment patch also carries the resourceVersion it was decided on. Running builds
// are the cache's plus the build Jobs this process created that the cache does not show yet
// (build-expectations.ts), so a lagging cache cannot start a build over the project's limit.
import { PatchStrategy, setHeaderOptions, type V1Job } from '@kubernetes/client-node';
import type { BundleObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { objectKey } from '../../lib/informer.ts';
import { ignoreNotFound, isAlreadyExists, mergePatch } from '../../lib/kube.ts';
import { ActRefused, isRefusal } from './refusal.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { stepDuration, stepTotal } from '../metrics.ts';
import {
  ANNOTATION_BUNDLE,
  LABEL_BUNDLE,
  LABEL_PROJECT,
  boundedName,
  labelValue,
} from '../../crds/labels.ts';
import { ANNOTATION_ROLLOUT_STARTED, buildJobName } from '../names.ts';
import type { Reconciler } from '../runtime/controller.ts';
import { KeyedMutex } from '../runtime/keyed-mutex.ts';
import { BuildExpectations } from './build-expectations.ts';
import { BundleGatherer } from './gather.ts';
import { decideBundle } from './decide.ts';
import type { BundleAction, BundleDecision, BundleInputs } from './decision.ts';
import { contendedBy } from './observed.ts';
import { signArchiveUrl } from '../../rules/archive-url.ts';
import { rollbackBundle } from '../../rules/rollback.ts';
import { backupJob, buildJob } from './jobs.ts';
import { jobState } from './state.ts';
import { timeMs } from '../../rules/timestamps.ts';
import { bundleStatusUpdate, transitionEvents } from './status.ts';
import { FINISHED_LABEL_PATCH, retirement } from './retire.ts';

/** A build Job's archive URL stays valid this long past its build timeout (slow pod starts). */
const ARCHIVE_URL_GRACE_SECONDS = 15 * 60;
const strategicMerge = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export class BundleReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  private readonly locks = new KeyedMutex();
  private readonly expectations = new BuildExpectations();
  private readonly gather: BundleGatherer;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
    this.gather = new BundleGatherer(ctx, this.expectations);
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
    const cached = await this.gather.withRefusedPods(this.gather.fromCache(bundle));
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
      let live = await this.gather.live(cached);
      let decision = this.decideCounting(live);
      if (decision.action.type === 'rollBack') {
        // The cache may not show a push that just arrived: a rollback must never replace it.
        live = { ...live, projectBundles: await this.gather.projectBundlesLive(bundle) };
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
        this.expectations.forget(
          this.gather.projectKey(input.bundle),
          buildJobName(input.bundle.metadata.name),
        );
      throw isRefusal(err) ? new ActRefused(decision.action.type, err) : err;
    }
  }

  /**
   * Decides with the running builds counted now, and expects the build Job it decides to create
   * before anything else can count: no await between the count and the expectation.
   */
  private decideCounting(input: BundleInputs): BundleDecision {
    const live = { ...input, ...this.gather.projectBuilds(input.bundle) };
    const decision = decideBundle(live);
    if (decision.action.type === 'createBuildJob')
      this.expectations.expect(
        this.gather.projectKey(input.bundle),
        buildJobName(input.bundle.metadata.name),
      );
    return decision;
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
