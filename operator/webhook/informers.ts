// The Webhook kind's cache: Webhooks by project and environment.
import type { WebhookObject } from '../../crds/index.ts';
import { INDEX, ref, type InformerScope } from '../indexes.ts';

export const webhookInformers = (scope: InformerScope) => ({
  webhooks: scope
    .kind<WebhookObject>('Webhook')
    .addIndex(INDEX.project, (w) => ref(w, w.spec?.projectRef?.name))
    .addIndex(INDEX.environment, (w) => ref(w, w.spec?.environmentRef?.name)),
});
