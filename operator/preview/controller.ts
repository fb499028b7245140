// The Preview controller (docs/previews.md): builds a pull request's head commit as a bundle
// with trigger PullRequest, serves the image beside the Project's previews environment (copies.ts),
// keeps the preview's own bundles few, and removes the Preview when its project stops previewing
// or it sat idle too long. It is the only writer of a Preview's status; the gateway writes the spec.
import {
  API_VERSION,
  type BundleObject,
  type PreviewObject,
  type PreviewReason,
  type ProjectObject,
} from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import type { V1Deployment } from '@kubernetes/client-node';
import { ANNOTATION_BUNDLE, LABEL_PREVIEW, LABEL_SHARD, labelValue } from '../../crds/labels.ts';
import { objectKey } from '../../lib/informer.ts';
import { isAlreadyExists, isNotFound } from '../../lib/kube.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { newest } from '../../rules/bundle-order.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { bundleName, newBundle } from '../../rules/new-bundle.ts';
import { previewObjectName } from '../../rules/preview-names.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Reconciler } from '../reconcile/controller.ts';
import { inShard } from '../shard.ts';
import { decidePreview, type PreviewDecision, type PreviewFacts, type PreviewStep } from './decide.ts';
import { servePreview } from './serve.ts';
import { ownedByPreview } from './copies.ts';
import { RemovalTold } from './removal-told.ts';
import { removeCopies } from './withdraw.ts';

/** How soon a preview that waits on something not watched (a Service to copy) is looked at again. */
const RECHECK_MS = 30_000;
const HOUR_MS = 3_600_000;

export class PreviewReconciler implements Reconciler {
  private readonly ctx: OperatorContext;
  /** The pull request hears of the removal before the Preview goes. */
  private readonly told: RemovalTold;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
    this.told = new RemovalTold(ctx);
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers } = this.ctx;
    const preview = informers.previews.get(namespace, name);
    if (!preview) return;
    const project = informers.projects.get(namespace, preview.spec.projectRef.name);
    if (!inShard(this.ctx, project ?? preview)) return;
    if (preview.metadata.deletionTimestamp) return this.told.removed(preview);
    await this.told.keep(preview, project);
    const settings = project?.spec.previews;
    const environment = settings
      ? informers.environments.get(namespace, settings.environmentRef.name)
      : undefined;
    const deployment = environment
      ? informers.deployments.get(namespace, environment.spec.deploymentRef.name)
      : undefined;
    const headBundle = previewBundleName(preview);
    const facts: PreviewFacts = {
      preview,
      project,
      environment,
      deployment,
      manual: project ? newestManual(this.ctx, project) : undefined,
      bundle: informers.bundles.get(namespace, headBundle),
      copy: deployment
        ? informers.deployments.get(
            namespace,
            previewObjectName(deployment.metadata?.name ?? '', preview.spec.number),
          )
        : undefined,
      hasSlot: project ? this.hasSlot(preview, project) : false,
      holdersOf: (host) => informers.previews.byIndex(INDEX.host, host),
      now: this.ctx.now(),
    };
    const decision = decidePreview(facts);

    // Idle: the time since the head commit was first seen.
    const status = this.ctx.status.current(preview);
    const now = this.ctx.now();
    const seenAt =
      status?.seenCommit === preview.spec.headCommit && status.lastPushAt ? new Date(status.lastPushAt) : now;
    const expiresAt = new Date(seenAt.getTime() + (settings?.idleHours ?? 120) * HOUR_MS);
    if (decision.next.step === 'remove') return this.remove(preview, decision.next.why);
    if (now >= expiresAt)
      return this.remove(preview, `no push for ${settings?.idleHours} hours (spec.previews.idleHours)`);

    const outcome = await this.act(facts, decision.next, headBundle);
    const shown = outcome ?? decision;
    const served = decision.next.step === 'watch' || decision.next.step === 'serve';
    const host = served ? (decision.next as { host: string }).host : undefined;
    await this.ctx.status.write('Preview', preview, {
      writer: 'preview',
      fields: {
        phase: shown.phase,
        ...(host ? { url: `${settings?.tlsSecretRef ? 'https' : 'http'}://${host}` } : {}),
        // Nothing serves it any more: no URL, nothing deployed.
        ...(decision.next.step === 'withdraw' ? { url: null, deployedCommit: null } : {}),
        ...(facts.bundle ? { bundle: headBundle } : {}),
        ...(shown.phase === 'Ready' ? { deployedCommit: preview.spec.headCommit } : {}),
        seenCommit: preview.spec.headCommit,
        lastPushAt: seenAt.toISOString(),
        expiresAt: expiresAt.toISOString(),
      },
      conditions: [shown.ready],
      observed: true,
    });
    await this.pruneBundles(preview, headBundle, facts.copy);
    const untilIdle = Math.max(1_000, expiresAt.getTime() - now.getTime());
    return { requeueAfterMs: outcome ? Math.min(RECHECK_MS, untilIdle) : untilIdle };
  }

  /** Does the step, with what the decision was made of; a decision of its own when it found something to wait for. */
  private async act(
    facts: PreviewFacts,
    next: PreviewStep,
    headBundle: string,
  ): Promise<PreviewDecision | undefined> {
    const { preview, project, manual, deployment } = facts;
    if (next.step === 'build') {
      await this.createBundle(preview, project!, manual!, headBundle);
      return undefined;
    }
    if (next.step === 'withdraw') {
      const removed = await removeCopies(this.ctx, preview);
      if (removed > 0)
        this.ctx.log.info(
          { preview: objectKey(preview.metadata.namespace, preview.metadata.name), removed },
          'withdrew the preview',
        );
      return undefined;
    }
    if (next.step !== 'serve') return undefined;
    return servePreview(this.ctx, {
      preview,
      settings: project!.spec.previews!,
      deployment: deployment!,
      container: next.container,
      image: next.image,
      bundle: next.bundle.metadata.name,
      host: next.host,
    });
  }

  private async createBundle(
    preview: PreviewObject,
    project: ProjectObject,
    manual: BundleObject,
    name: string,
  ): Promise<void> {
    const { spec } = preview;
    const bundle = newBundle({
      name,
      namespace: preview.metadata.namespace,
      project: { name: project.metadata.name, shard: project.metadata.labels?.[LABEL_SHARD] },
      source: {
        git: {
          commit: spec.headCommit,
          branch: spec.branch,
          ...(spec.fetchRef ? { fetchRef: spec.fetchRef } : {}),
        },
      },
      trigger: {
        type: 'PullRequest',
        provider: spec.provider,
        ...(spec.fork ? { fork: true } : {}),
        previewRef: { name: preview.metadata.name },
      },
      comment: `#${spec.number} ${spec.title ?? ''}`.trim(),
      settingsFrom: manual,
    });
    // Owned by the Preview (and so by the Project): it goes with the pull request.
    bundle.metadata.labels = {
      ...bundle.metadata.labels,
      [LABEL_PREVIEW]: labelValue(preview.metadata.name),
    };
    bundle.metadata.ownerReferences = [ownedByPreview(preview)];
    try {
      await this.ctx.slipway.create('Bundle', bundle);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /** Among the project's previews that may build, the first maxPreviews (oldest first) have a slot. */
  private hasSlot(preview: PreviewObject, project: ProjectObject): boolean {
    const settings = project.spec.previews;
    if (!settings) return false;
    const waitsOnFork = (p: PreviewObject) =>
      p.spec.fork && (settings.forks !== 'Approve' || p.spec.approvedCommit !== p.spec.headCommit);
    const hostTaken = (p: PreviewObject) =>
      p.metadata.name !== preview.metadata.name &&
      findCondition(p.status?.conditions, 'Ready')?.reason === ('HostTaken' satisfies PreviewReason);
    const order = this.ctx.informers.previews
      .byIndex(INDEX.project, objectKey(project.metadata.namespace, project.metadata.name))
      .filter((p) => !p.metadata.deletionTimestamp && !waitsOnFork(p) && !hostTaken(p))
      .sort(
        (a, b) =>
          (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
          a.spec.number - b.spec.number,
      );
    const at = order.findIndex((p) => p.metadata.name === preview.metadata.name);
    return at >= 0 && at < settings.maxPreviews;
  }

  private async remove(preview: PreviewObject, why: string): Promise<void> {
    const { namespace, name } = preview.metadata;
    this.ctx.log.info({ preview: objectKey(namespace, name), why }, 'removing the preview');
    void this.ctx.events.normal(
      { apiVersion: API_VERSION, kind: 'Preview', metadata: preview.metadata },
      'PreviewRemoved',
      `removed: ${why}`,
    );
    try {
      await this.ctx.slipway.delete('Preview', namespace, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * The preview's finished bundles but the head's and the one its copy serves: each push would
   * add one. Without a copy to read (its environment's Deployment gone) none is pruned.
   */
  private async pruneBundles(
    preview: PreviewObject,
    headBundle: string,
    copy: V1Deployment | undefined,
  ): Promise<void> {
    const { namespace, name } = preview.metadata;
    const { informers } = this.ctx;
    if (!copy) return;
    const served = copy.metadata?.annotations?.[ANNOTATION_BUNDLE];
    const old = informers.bundles
      .byIndex(INDEX.preview, objectKey(namespace, name))
      .filter((b) => b.metadata.name !== headBundle && b.metadata.name !== served && isFinished(b));
    for (const b of old) {
      try {
        await this.ctx.slipway.delete('Bundle', namespace, b.metadata.name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}

/** The bundle of a preview's head commit: the same name for the same commit, so made once. */
export function previewBundleName(preview: PreviewObject): string {
  const seed = ['PullRequest', `preview:${preview.metadata.name}`, `commit:${preview.spec.headCommit}`].join(
    '\n',
  );
  return bundleName(preview.spec.projectRef.name, seed);
}

function newestManual(ctx: OperatorContext, project: ProjectObject): BundleObject | undefined {
  const key = objectKey(project.metadata.namespace, project.metadata.name);
  return newest(
    ctx.informers.bundles.byIndex(INDEX.project, key).filter((b) => b.spec.trigger.type === 'Manual'),
  );
}
