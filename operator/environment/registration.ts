// The Environment kind in the operator (registration.ts): its controller and watches.
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { EnvironmentReconciler, watchForEnvironments } from './controller.ts';

export const environmentRegistration: Registration = ({ ctx }) => ({
  controllers: [
    {
      name: 'environment',
      reconciler: new EnvironmentReconciler(ctx),
      restart: () => ctx.informers.environments.list(),
    },
  ],
  watch: (controllers) => watchForEnvironments(ctx, controllerNamed(controllers, 'environment')),
});
