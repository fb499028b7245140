// The Project kind in the operator (registration.ts): its controller and watches.
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { ProjectReconciler, watchForProjects } from './controller.ts';

export const projectRegistration: Registration = ({ ctx }) => ({
  controllers: [
    { name: 'project', reconciler: new ProjectReconciler(ctx), restart: () => ctx.informers.projects.list() },
  ],
  watch: (controllers) => watchForProjects(ctx, controllerNamed(controllers, 'project')),
});
