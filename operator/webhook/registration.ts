// The Webhook kind in the operator (registration.ts): its controller and watches.
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { WebhookReconciler, watchForWebhooks } from './controller.ts';

export const webhookRegistration: Registration = ({ ctx }) => ({
  controllers: [
    { name: 'webhook', reconciler: new WebhookReconciler(ctx), restart: () => ctx.informers.webhooks.list() },
  ],
  watch: (controllers) => watchForWebhooks(ctx, controllerNamed(controllers, 'webhook')),
});
