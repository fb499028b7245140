// The Bundle controller: gathers state (gather.ts), asks decide.ts what to do, does that one
// thing (act.ts), then writes the status with its Events and publishes the life-cycle events
// (write.ts, lifecycle.ts). What re-enqueues a bundle is in watches.ts.
//
// Decisions come from the informer caches. Any decision that acts or ends the chain is taken
// again on state read straight from the API server, holding the target Deployment
// (contendedBy), so a lagging cache cannot touch a Deployment that another bundle is rolling
// out; the Deployment patch also carries the resourceVersion it was decided on. Running builds
// are the cache's plus the build Jobs this process created that the cache does not show yet
// (build-expectations.ts), so a lagging cache cannot start a build over the project's limit.
import type { BundleObject } from '../../crds/index.ts';
import { LABEL_BUNDLE_NAMESPACE, LABEL_PROJECT } from '../../crds/labels.ts';
import { findCondition } from '../../lib/conditions.ts';
import { objectKey } from '../../lib/informer.ts';
import { ignoreNotFound, mergePatch } from '../../lib/kube.ts';
import { handOver } from '../shard.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { buildJobName } from '../names.ts';
import type { Reconciler } from '../reconcile/controller.ts';
import { KeyedMutex } from '../reconcile/keyed-mutex.ts';
import { act } from './act.ts';
import { deleteBuildSecrets, releaseBuild, releaseOrphanBuild } from './build-namespace.ts';
import { jobState } from './workload-state.ts';
import { BuildExpectations } from './build-expectations.ts';
import { awaitsPushedImage } from './build-step.ts';
import { readyOf } from './chain.ts';
import { decideBundle, isSettled } from './decide.ts';
import type { BundleDecision, BundleInputs } from './decision.ts';
import { BundleGatherer } from './gather.ts';
import type { BundleLifecycle } from './lifecycle.ts';
import { contendedBy } from './workload-readings.ts';
import { ActRefused, isRefusal } from './refusal.ts';
import { FINISHED_LABEL_PATCH, retirement } from './retire.ts';
import { writeBundleStatus } from './write.ts';

export class BundleReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  private readonly locks = new KeyedMutex();
  private readonly expectations = new BuildExpectations();
  /** Bundles this process let go (their finalizer removed): their delete event needs no orphan check. */
  private readonly released = new Set<string>();
  /** Bundles (by uid) whose build's Secret copies this process deleted. */
  private readonly secretsDropped = new Set<string>();
  private readonly gather: BundleGatherer;
  private readonly lifecycle: BundleLifecycle;

  constructor(ctx: OperatorContext, lifecycle: BundleLifecycle) {
    this.ctx = ctx;
    this.lifecycle = lifecycle;
    this.gather = new BundleGatherer(ctx, this.expectations);
    // A build Job the cache shows (or no longer shows) is counted from the cache.
    ctx.informers.buildJobs.onEvent((job) => {
      const labels = job.metadata?.labels;
      const project = labels?.[LABEL_PROJECT];
      if (project && job.metadata?.name)
        this.expectations.forget(objectKey(labels?.[LABEL_BUNDLE_NAMESPACE], project), job.metadata.name);
    });
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const bundle = this.ctx.informers.bundles.get(namespace, name);
    if (!bundle) return this.releaseOrphan(namespace, name);
    // Its build Job is in the build namespace, out of the garbage collector's reach.
    if (bundle.metadata.deletionTimestamp) {
      await releaseBuild(this.ctx, bundle);
      if (this.released.size >= 10_000) this.released.clear();
      this.released.add(objectKey(namespace, name));
      return undefined;
    }
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
        writer: 'bundle',
        conditions: [readyOf({ how: 'waiting', reason: 'Refused', message: refusal.message })],
      })
      .catch((err: unknown) =>
        this.ctx.log.warn(
          { err, bundle: objectKey(bundle.metadata.namespace, bundle.metadata.name) },
          'writing a refusal failed',
        ),
      );
  }

  /**
   * A bundle gone from the cache whose build Job the cache still shows, and that this process did
   * not let go itself: its finalizer was removed by hand (releaseOrphanBuild). No API call for the
   * bundles this process released, nor for one whose build is no longer watched.
   */
  private async releaseOrphan(namespace: string, name: string): Promise<void> {
    if (this.released.delete(objectKey(namespace, name))) return;
    if (!this.ctx.informers.buildJobs.get(this.ctx.config.buildNamespace, buildJobName(namespace, name)))
      return;
    await releaseOrphanBuild(this.ctx, namespace, name);
  }

  /** Deletes the copies of a build's Secrets once its Job has ended (once per bundle and process). */
  private async dropBuildSecrets(bundle: BundleObject): Promise<void> {
    const uid = bundle.metadata.uid ?? objectKey(bundle.metadata.namespace, bundle.metadata.name);
    if (this.secretsDropped.has(uid)) return;
    await deleteBuildSecrets(this.ctx, bundle.metadata.namespace, bundle.metadata.name);
    if (this.secretsDropped.size >= 10_000) this.secretsDropped.clear();
    this.secretsDropped.add(uid);
  }

  private async reconcileBundle(bundle: BundleObject): Promise<HandlerResult | void> {
    // Its Project is in another shard (moved, or a manual bundle made without the label).
    if (await handOver(this.ctx, bundle)) return;
    // Never decided again (decide.ts): only its ended Jobs are let go. Not gathering its project's
    // other bundles and builds spares the operator's start a look at 100 siblings per bundle.
    if (isSettled(bundle)) return this.retire(this.gather.withJobs(bundle));
    const cached = await this.gather.withRefusedPods(this.gather.fromCache(bundle));
    // The build's copies of credentials go as soon as it has ended, whatever comes next.
    if (cached.buildJob && jobState(cached.buildJob).state !== 'running') await this.dropBuildSecrets(bundle);
    const first = this.decideCounting(cached);
    if (first.action.type === 'none' && first.outcome !== 'finished' && !awaitsPushedImage(cached))
      return this.write(cached, first);
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
      return { live: await this.actExpecting(decision, live), decision };
    });
    return acted && this.write(acted.live, acted.decision);
  }

  /**
   * A finished bundle's ended Jobs are labelled, and so leave the cache (retire.ts).
   * Housekeeping: a refused patch (a Role without the patch verb) is logged, never retried.
   */
  private async retire(input: Parameters<typeof retirement>[0]): Promise<void> {
    const { namespace, name } = input.bundle.metadata;
    const { batch } = this.ctx.clients;
    try {
      for (const job of retirement(input)) {
        if (job === input.buildJob) await this.dropBuildSecrets(input.bundle);
        await batch
          .patchNamespacedJob(
            { name: job.metadata!.name!, namespace: job.metadata!.namespace!, body: FINISHED_LABEL_PATCH },
            mergePatch,
          )
          .catch(ignoreNotFound);
      }
    } catch (err) {
      this.ctx.log.warn({ err, bundle: `${namespace}/${name}` }, "labelling a finished bundle's Jobs failed");
    }
  }

  private async actAndWrite(input: BundleInputs, decision: BundleDecision): Promise<HandlerResult | void> {
    return this.write(await this.actExpecting(decision, input), decision);
  }

  private write(input: BundleInputs, decision: BundleDecision): Promise<HandlerResult | void> {
    return writeBundleStatus(this.ctx, this.lifecycle, input, decision);
  }

  /**
   * Acts, and returns the inputs with the bundle as the act left it (the status write holds at
   * its version); a build Job that could not be created is no longer expected. An act the API server
   * refuses (a quota, an admission policy, a rejected object) becomes ActRefused: reconcile()
   * writes it into the Bundle once the Deployment lock is released, instead of the bundle keeping
   * its last step while the retries go on in the operator's log.
   */
  private async actExpecting(decision: BundleDecision, input: BundleInputs): Promise<BundleInputs> {
    try {
      const changed = await act(this.ctx, decision.action, input);
      return changed ? { ...input, bundle: changed } : input;
    } catch (err) {
      if (decision.action.type === 'createBuildJob')
        this.expectations.forget(
          this.gather.projectKey(input.bundle),
          buildJobName(input.bundle.metadata.namespace, input.bundle.metadata.name),
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
        buildJobName(input.bundle.metadata.namespace, input.bundle.metadata.name),
      );
    return decision;
  }
}
