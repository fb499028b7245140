// Automatic promotion (Environment spec.promoteFrom): each bundle that becomes Ready on the source
// Environment gets a Promotion to this one, with the Environment's gates — made once per bundle
// (status.autoPromotion remembers the last, so a Promotion someone deleted is not made again).
// The Promotion controller does the rest. Keyed by the target Environment.
import { ownerReferenceTo } from '../../crds/owner-references.ts';
import type { EnvironmentObject, PromotionObject } from '../../crds/index.ts';
import { API_VERSION } from '../../crds/index.ts';
import { boundedName } from '../../crds/labels.ts';
import { objectKey } from '../../lib/informer.ts';
import { isAlreadyExists } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';
import { wasDeployedTo } from '../bundle/workload-state.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../reconcile/controller.ts';
import { inShard } from '../shard.ts';

/** spec.requestedBy of the Promotions Slipway makes (no person asked: the Environment did). */
export const automaticRequester = (environment: string) =>
  `slipway (spec.promoteFrom of Environment ${environment})`;

export class AutomaticPromotions implements Reconciler {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<void> {
    const { informers } = this.ctx;
    const target = informers.environments.get(namespace, name);
    const from = target?.spec.promoteFrom?.environmentRef.name;
    if (!target || !from || from === name || target.metadata.deletionTimestamp) return;
    const project = informers.projects.get(namespace, target.spec.projectRef.name);
    if (!project || !inShard(this.ctx, project)) return;
    const source = informers.environments.get(namespace, from);
    const current = source?.status?.currentBundle;
    const bundle = current ? informers.bundles.get(namespace, current) : undefined;
    if (!source || !bundle || bundle.status?.phase !== 'Ready' || !wasDeployedTo(bundle, from)) return;
    // A rollback on the source puts back what was there: it is not news to promote.
    if (bundle.spec.trigger.type === 'Rollback') return;
    if (source.spec.projectRef.name !== target.spec.projectRef.name) return;
    const status = this.ctx.status.current(target) as EnvironmentObject['status'];
    if (status?.autoPromotion?.bundle === current) return;
    // This Environment runs that image already (promoted by hand, or the source promotes from here).
    const here = target.status?.currentBundle
      ? informers.bundles.get(namespace, target.status.currentBundle)
      : undefined;
    if (here?.status?.image && here.status.image === bundle.status?.image) return;
    const promotionName = boundedName(`${current}-to-${name}`, '', 253);
    const promotion: PromotionObject = {
      apiVersion: API_VERSION,
      kind: 'Promotion',
      // Goes with its Environment.
      metadata: {
        name: promotionName,
        namespace,
        ...(target.metadata.uid
          ? {
              ownerReferences: [ownerReferenceTo('Environment', target)],
            }
          : {}),
      },
      spec: {
        projectRef: { name: project.metadata.name },
        from: { environmentRef: { name: from } },
        bundleRef: { name: current! },
        to: { environmentRef: { name } },
        ...(target.spec.promoteFrom!.gates ? { gates: structuredClone(target.spec.promoteFrom!.gates) } : {}),
        requestedBy: automaticRequester(name),
      },
    };
    try {
      await this.ctx.slipway.create('Promotion', promotion);
      this.ctx.log.info(
        { environment: objectKey(namespace, name), bundle: current, promotion: promotionName },
        'promotion made',
      );
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = informers.promotions.get(namespace, promotionName);
      if (existing && existing.spec.requestedBy !== promotion.spec.requestedBy)
        void this.ctx.events.warning(
          { apiVersion: API_VERSION, kind: 'Environment', metadata: target.metadata },
          'PromotionNameTaken',
          `Promotion ${promotionName} exists and was asked for by ${existing.spec.requestedBy}: bundle ${current} is not promoted automatically (that Promotion decides)`,
        );
    }
    await this.ctx.status.write('Environment', target, {
      writer: 'promotion',
      fields: {
        autoPromotion: { bundle: current, promotion: promotionName, at: this.ctx.now().toISOString() },
      },
      conditions: [],
    });
  }
}

/** What makes an Environment with spec.promoteFrom look again: itself, its source, the source's bundles. */
export function watchForAutomaticPromotions(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const promotedFrom = (namespace: string | undefined, environment: string | undefined) => {
    if (!namespace || !environment) return;
    for (const e of informers.environments.byIndex(INDEX.promoteFrom, objectKey(namespace, environment)))
      controller.enqueue(e.metadata.namespace, e.metadata.name);
  };
  informers.environments.onEvent((e) => {
    if (e.spec?.promoteFrom) controller.enqueue(e.metadata.namespace, e.metadata.name);
    promotedFrom(e.metadata.namespace, e.metadata.name);
  });
  informers.bundles.onEvent((b) => promotedFrom(b.metadata.namespace, b.spec?.deploy?.environmentRef?.name));
}
