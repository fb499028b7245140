// The Promotion controller (docs/promotion.md): chooses the bundle a Promotion moves (once, then
// kept in status.bundle), looks at its gates — soak on the source environment, the status page's
// incidents and maintenance, approvals — and when they hold creates one bundle with trigger
// Promotion that reuses that bundle's image by digest (source.bundleRef: no build), then follows
// it to Succeeded or Failed. The bundle controller does the backup and rollout as for any bundle.
// It is the only writer of a Promotion's status.
import type { BundleObject, PromotionObject } from '../../crds/index.ts';
import { LABEL_PROMOTION, LABEL_SHARD, labelValue } from '../../crds/labels.ts';
import { objectKey } from '../../lib/informer.ts';
import { isAlreadyExists, isNotFound } from '../../lib/kube.ts';
import { bundleOrigin } from '../../rules/bundle-origin.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { bundleName, newBundle } from '../../rules/new-bundle.ts';
import { noticeFromObject, type Notice } from '../../rules/notice-timeline.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import { bundleImage } from '../names.ts';
import type { Reconciler } from '../reconcile/controller.ts';
import { inShard } from '../shard.ts';
import { decidePromotion, type PromotionDecision, type PromotionFacts } from './decide.ts';

/** A waiting promotion is looked at again at least this often (a gate's clock, a missed event). */
const RECHECK_MS = 60_000;

export class PromotionReconciler implements Reconciler {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers } = this.ctx;
    const promotion = informers.promotions.get(namespace, name);
    if (!promotion || promotion.metadata.deletionTimestamp) return;
    const project = informers.projects.get(namespace, promotion.spec.projectRef.name);
    if (!inShard(this.ctx, project ?? promotion)) return;
    const status = this.ctx.status.current(promotion) as PromotionObject['status'];
    // Succeeded and Failed are ends: what happens later on the environments is not this promotion's.
    if (status?.phase === 'Succeeded' || status?.phase === 'Failed') return;
    const facts = await this.facts(promotion, project, status);
    const decision = decidePromotion(facts);
    const rolloutName = rolloutBundleName(promotion);
    if (decision.promote) await this.createRollout(facts, rolloutName);
    await this.writeStatus(promotion, facts, decision, status, rolloutName);
    if (decision.phase !== 'Waiting') return;
    const now = this.ctx.now().getTime();
    const wake = decision.wakeAt === undefined ? RECHECK_MS : Math.max(1_000, decision.wakeAt - now + 1_000);
    return { requeueAfterMs: Math.min(RECHECK_MS, wake) };
  }

  private async facts(
    promotion: PromotionObject,
    project: PromotionFacts['project'],
    status: PromotionObject['status'],
  ): Promise<PromotionFacts> {
    const { informers, config } = this.ctx;
    const { namespace } = promotion.metadata;
    const { spec } = promotion;
    const from = informers.environments.get(namespace, spec.from.environmentRef.name);
    const to = informers.environments.get(namespace, spec.to.environmentRef.name);
    // Once made, the rollout bundle decides: read from the API server when the cache has not
    // shown it (yet, or any more), and what it promotes is what it reuses.
    let rollout: BundleObject | undefined = informers.bundles.get(namespace, rolloutBundleName(promotion));
    let rolloutGone = false;
    if (!rollout && status?.rolloutBundle) {
      rollout = await this.ctx.slipway
        .get<BundleObject>('Bundle', namespace, status.rolloutBundle)
        .catch((err: unknown) => {
          if (!isNotFound(err)) throw err;
          rolloutGone = true;
          return undefined;
        });
    }
    const sourceName =
      rollout?.spec.source.bundleRef?.name ??
      status?.bundle ??
      spec.bundleRef?.name ??
      from?.status?.currentBundle;
    const get = (name: string) => informers.bundles.get(namespace, name);
    const running = to?.status?.currentBundle ? get(to.status.currentBundle) : undefined;
    const projectKey = objectKey(namespace, spec.projectRef.name);
    const notices: Notice[] = [];
    for (const n of informers.statusNotices.list(namespace)) {
      // An incident is one before the status page numbers it (ids matter only to the page).
      const notice = noticeFromObject({ ...n, spec: { ...n.spec, id: n.status?.id ?? n.spec.id ?? 0 } });
      if (notice) notices.push(notice);
    }
    return {
      promotion,
      project,
      from,
      to,
      sourceName,
      source: sourceName ? get(sourceName) : undefined,
      projectBundles: informers.bundles.byIndex(INDEX.project, projectKey),
      rollout,
      rolloutGone,
      origin: (bundle) => bundleOrigin(bundle, get),
      runningOrigin: running ? bundleOrigin(running, get) : undefined,
      components: new Set(informers.statusComponents.list(namespace).map((c) => c.metadata.name)),
      notices,
      ownImage: sourceName
        ? bundleImage(config.registry, namespace, spec.projectRef.name, sourceName)
        : undefined,
      now: this.ctx.now(),
    };
  }

  private async createRollout(facts: PromotionFacts, name: string): Promise<void> {
    const { promotion, project, source } = facts;
    const { spec, metadata } = promotion;
    const bundle = newBundle({
      name,
      namespace: metadata.namespace,
      project: {
        name: project!.metadata.name,
        uid: project!.metadata.uid,
        shard: project!.metadata.labels?.[LABEL_SHARD],
      },
      source: { bundleRef: { name: source!.metadata.name } },
      trigger: { type: 'Promotion', promotionRef: { name: metadata.name } },
      comment: `promotion ${metadata.name}: bundle ${source!.metadata.name} from ${spec.from.environmentRef.name}${
        source!.spec.comment ? ` (${source!.spec.comment.split('\n')[0]})` : ''
      }`,
      deploy: {
        environment: spec.to.environmentRef.name,
        backupBeforeDeploy: spec.backupBeforeDeploy ?? false,
      },
    });
    bundle.metadata.labels = { ...bundle.metadata.labels, [LABEL_PROMOTION]: labelValue(metadata.name) };
    try {
      await this.ctx.slipway.create('Bundle', bundle);
      this.ctx.log.info(
        {
          promotion: objectKey(metadata.namespace, metadata.name),
          bundle: name,
          image: source!.status?.image,
        },
        'promoting',
      );
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async writeStatus(
    promotion: PromotionObject,
    facts: PromotionFacts,
    decision: PromotionDecision,
    before: PromotionObject['status'],
    rolloutName: string,
  ): Promise<void> {
    const now = this.ctx.now().toISOString();
    const seen = new Map((before?.approvals ?? []).map((a) => [a.user, a.at]));
    const chosen = facts.source && decision.phase !== 'Failed' ? facts.source : undefined;
    const ended = decision.phase === 'Succeeded' || decision.phase === 'Failed';
    await this.ctx.status.write('Promotion', promotion, {
      writer: 'promotion',
      fields: {
        phase: decision.phase,
        ...(chosen && !before?.bundle ? { bundle: chosen.metadata.name } : {}),
        ...(chosen?.status?.image && !before?.image ? { image: chosen.status.image } : {}),
        ...(facts.rollout || decision.promote ? { rolloutBundle: rolloutName } : {}),
        ...(decision.gates
          ? { gates: decision.gates.map((g) => ({ name: g.name, met: g.met, message: g.message })) }
          : {}),
        ...(decision.counted
          ? { approvals: decision.counted.map((user) => ({ user, at: seen.get(user) ?? now })) }
          : {}),
        ...(ended ? { finishedAt: now } : {}),
      },
      conditions: [decision.ready],
      observed: true,
    });
  }
}

/**
 * The bundle that rolls a promotion out: a name of Slipway's own (no one else may take it first),
 * the same for the same promotion, another for a new promotion of the same name.
 */
export function rolloutBundleName(promotion: PromotionObject): string {
  const { name, uid } = promotion.metadata;
  return bundleName(promotion.spec.projectRef.name, `Promotion\npromotion:${name}\nuid:${uid ?? ''}`);
}
