// The Webhook controller: checks the project and environment a webhook points at, publishes
// the project's webhook URL on it once usable, and records the bundle it triggered last.
import { inShard } from '../shard.ts';
import { objectKey } from '../../lib/informer.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Controller, Reconciler } from '../reconcile/controller.ts';
import { decideWebhook } from './decide.ts';

export class WebhookReconciler implements Reconciler {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const { informers } = this.ctx;
    const webhook = informers.webhooks.get(namespace, name);
    if (!webhook || webhook.metadata.deletionTimestamp) return;
    const project = informers.projects.get(namespace, webhook.spec.projectRef.name);
    // Another shard's: that shard's operator looks after it (a missing one: the default shard says so).
    if (!inShard(this.ctx, project ?? webhook)) return;
    const envName = webhook.spec.environmentRef?.name;
    const decision = decideWebhook({
      webhook,
      project,
      environment: envName ? informers.environments.get(namespace, envName) : undefined,
      bundles: informers.bundles.byIndex(INDEX.webhook, objectKey(namespace, name)),
    });
    const fields = {
      url: decision.url ?? null,
      ...(decision.lastTriggered ? { lastTriggered: decision.lastTriggered } : {}),
    };
    await this.ctx.status.writeReady('Webhook', webhook, decision.ready, fields);
  }
}

export function watchForWebhooks(ctx: OperatorContext, controller: Controller): void {
  const { informers } = ctx;
  const enqueueAll = (index: string, key: string) => {
    for (const w of informers.webhooks.byIndex(index, key))
      controller.enqueue(w.metadata.namespace, w.metadata.name);
  };
  informers.webhooks.onEvent((w) => controller.enqueue(w.metadata.namespace, w.metadata.name));
  informers.projects.onEvent((p) =>
    enqueueAll(INDEX.project, objectKey(p.metadata.namespace, p.metadata.name)),
  );
  informers.environments.onEvent((e) =>
    enqueueAll(INDEX.environment, objectKey(e.metadata.namespace, e.metadata.name)),
  );
  informers.bundles.onEvent((b) => controller.enqueue(b.metadata.namespace, b.spec.trigger.webhookRef?.name));
}
