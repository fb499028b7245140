// The Promotion kind's cache. People make Promotions without a shard label: every one is
// watched, and a shard acts for its Projects' (like Projects).
import type { PromotionObject } from '../../crds/index.ts';
import { INDEX, ref, type InformerScope } from '../indexes.ts';

const ended = (p: PromotionObject) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

export const promotionInformers = (scope: InformerScope) => ({
  promotions: scope
    .kind<PromotionObject>('Promotion')
    .addIndex(INDEX.project, (p) => ref(p, p.spec?.projectRef?.name))
    .addIndex(INDEX.promotionEnvironment, (p) =>
      ended(p)
        ? []
        : [p.spec?.from?.environmentRef?.name, p.spec?.to?.environmentRef?.name].flatMap((e) => ref(p, e)),
    ),
});
