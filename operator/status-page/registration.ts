// The status kinds in the operator (registration.ts): StatusPage, StatusComponent and
// StatusNotice controllers, the last two sharing the page's ids, and their watches.
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { PageEntryReconciler, StatusPageReconciler } from './controller.ts';
import { PageIds } from './page-ids.ts';
import { watchStatusPageEntries } from './watches.ts';

export const statusPageRegistration: Registration = ({ ctx }) => {
  const ids = new PageIds(ctx.slipway);
  const { informers } = ctx;
  return {
    controllers: [
      {
        name: 'statuspage',
        reconciler: new StatusPageReconciler(ctx),
        restart: () => informers.statusPages.list(),
      },
      {
        name: 'statuscomponent',
        reconciler: new PageEntryReconciler('StatusComponent', ctx, ids),
        restart: () => informers.statusComponents.list(),
      },
      {
        name: 'statusnotice',
        reconciler: new PageEntryReconciler('StatusNotice', ctx, ids),
        restart: () => informers.statusNotices.list(),
      },
    ],
    watch(controllers) {
      watchStatusPageEntries(
        informers,
        controllerNamed(controllers, 'statuscomponent'),
        controllerNamed(controllers, 'statusnotice'),
        controllerNamed(controllers, 'statuspage'),
      );
    },
  };
};
