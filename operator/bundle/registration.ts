// The Bundle kind in the operator (registration.ts): its controller, which publishes the bundles'
// life-cycle events the sinks about bundles listen to, and its watches.
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { BundleReconciler } from './controller.ts';
import { watchForBundles } from './watches.ts';

export const bundleRegistration: Registration = ({ ctx, lifecycle }) => ({
  controllers: [
    {
      name: 'bundle',
      reconciler: new BundleReconciler(ctx, lifecycle),
      restart: () => ctx.informers.bundles.list(),
    },
  ],
  watch: (controllers) => watchForBundles(ctx, controllerNamed(controllers, 'bundle')),
});
