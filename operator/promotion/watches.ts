// What makes the Promotion controller look at a promotion again: the promotion itself, the bundle
// it made, the project's bundles (one becomes Ready on the source environment, or replaces the
// promoted one there), the environments it names, and the namespace's status notices (an
// incident opened or resolved, maintenance begun or over) while it waits.
import { objectKey } from '../../lib/informer.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Controller } from '../reconcile/controller.ts';

export function watchForPromotions(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const enqueue = (p: { metadata: { namespace: string; name: string } }) =>
    controller.enqueue(p.metadata.namespace, p.metadata.name);
  const ofEnvironment = (namespace: string | undefined, environment: string | undefined) => {
    if (!namespace || !environment) return;
    for (const p of informers.promotions.byIndex(
      INDEX.promotionEnvironment,
      objectKey(namespace, environment),
    ))
      enqueue(p);
  };
  informers.promotions.onEvent((p) => enqueue(p));
  informers.bundles.onEvent((b) => {
    const made = b.spec?.trigger?.promotionRef?.name;
    if (made) controller.enqueue(b.metadata.namespace, made);
    ofEnvironment(b.metadata.namespace, b.spec?.deploy?.environmentRef?.name);
  });
  informers.environments.onEvent((e) => ofEnvironment(e.metadata.namespace, e.metadata.name));
  informers.projects.onEvent((p) => {
    for (const promotion of informers.promotions.byIndex(
      INDEX.project,
      objectKey(p.metadata.namespace, p.metadata.name),
    ))
      enqueue(promotion);
  });
  informers.statusNotices.onEvent((n) => {
    for (const p of informers.promotions.list(n.metadata.namespace))
      if (p.status?.phase === undefined || p.status.phase === 'Waiting') enqueue(p);
  });
}
