// The Promotion kind in the operator (registration.ts): the Promotion controller, and the
// automatic promotions of Environments with spec.promoteFrom (keyed by the target Environment).
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { AutomaticPromotions, watchForAutomaticPromotions } from './automatic.ts';
import { PromotionReconciler } from './controller.ts';
import { watchForPromotions } from './watches.ts';

export const promotionRegistration: Registration = ({ ctx }) => ({
  controllers: [
    {
      name: 'promotion',
      reconciler: new PromotionReconciler(ctx),
      // A promotion soaking or waiting on a gate has only its requeue, which a restart loses.
      restart: () => ctx.informers.promotions.list(),
    },
    {
      name: 'promote-from',
      reconciler: new AutomaticPromotions(ctx),
      restart: () => ctx.informers.environments.list().filter((e) => e.spec?.promoteFrom),
    },
  ],
  watch(controllers) {
    watchForPromotions(ctx, controllerNamed(controllers, 'promotion'));
    watchForAutomaticPromotions(ctx, controllerNamed(controllers, 'promote-from'));
  },
});
