// The Preview kind in the operator (registration.ts): the Preview controller, and the periodic
// look at each previewing project's open pull requests (one worker: it is paced, not parallel),
// which share what was removed so a closed pull request's preview is not made again.
import type { Registration } from '../registration.ts';
import { controllerNamed } from '../registration.ts';
import { PreviewReconciler } from './controller.ts';
import { PullRequestPoll, watchForPolls } from './poll.ts';
import { RemovedPreviews } from './removed-previews.ts';
import { watchForPreviews } from './watches.ts';

export const previewRegistration: Registration = ({ ctx, secrets, outbound }) => {
  const removed = new RemovedPreviews();
  return {
    controllers: [
      {
        name: 'preview',
        reconciler: new PreviewReconciler(ctx),
        restart: () => ctx.informers.previews.list(),
      },
      {
        name: 'pull-request-poll',
        reconciler: new PullRequestPoll(ctx, secrets, outbound, removed),
        workers: 1,
        restart: () => ctx.informers.projects.list(),
      },
    ],
    watch(controllers) {
      watchForPreviews(ctx, controllerNamed(controllers, 'preview'), removed);
      watchForPolls(ctx, controllerNamed(controllers, 'pull-request-poll'));
    },
  };
};
