// Tells a Project's notification receivers what its pull requests' previews did: PreviewReady,
// PreviewFailed and PreviewRemoved (preview-ending.ts), each once per head commit, in the
// receiver's format (types/). A lane is one preview and one receiver (`namespace/preview/receiver`);
// each change of a Preview owes its receivers. What each took is kept on the Preview
// (status.notified); a removed preview waits for its PreviewRemoved (the Preview controller's
// finalizer, a few minutes at most). Failures show on the Project (condition Notified).
import type { NotifyReason, PreviewObject } from '../../crds/index.ts';
import { writeProjectCondition, writeProjectProblem } from '../delivery/project-condition.ts';
import { receiverSecrets } from '../delivery/receiver.ts';
import type { EngineHandle, Problem, Sink, SinkDeps } from '../delivery/sink.ts';
import { laneOf } from '../delivery/sink.ts';
import { notificationsTotal } from '../metrics.ts';
import { lanePreview } from '../subjects/previews.ts';
import { previewEnvironment } from '../../providers/preview-report.ts';
import { severityOf } from './bundle-ending.ts';
import { previewEnding, previewReceipt } from './preview-ending.ts';
import { PREVIEW_NOTIFIED, previewNotifiedBook } from './preview-notified-book.ts';
import { readReceiver, wants } from './receivers.ts';
import { notificationRequest } from './types/index.ts';

const problem = (reason: NotifyReason, message: string): Problem => ({ reason, message });

export function previewNotificationSink({ ctx, secrets }: SinkDeps): Sink {
  let engine: EngineHandle;
  const projectOf = (p: PreviewObject) =>
    ctx.informers.projects.get(p.metadata.namespace, p.spec.projectRef.name);
  const owe = (preview: PreviewObject, now = false) => {
    const ending = previewEnding(preview);
    if (!ending) return;
    const taken = engine.receipts(PREVIEW_NOTIFIED, laneOf(preview));
    for (const n of projectOf(preview)?.spec.notifications ?? [])
      if (wants(n, ending.event) && taken.get(n.name)?.value !== previewReceipt(ending))
        engine.owe(`${laneOf(preview)}/${n.name}`, { now });
  };
  const parts = (lane: string) => {
    const [namespace = '', name = '', receiver = ''] = lane.split('/');
    return { subject: `${namespace}/${name}`, receiver };
  };
  return {
    name: 'preview-notification',
    failedReason: 'NotificationFailed' satisfies NotifyReason,
    books: [previewNotifiedBook(ctx)],
    attach(handle) {
      engine = handle;
      ctx.informers.previews.onEvent((preview, type) => {
        if (type !== 'delete') owe({ ...preview, status: ctx.status.current(preview) }, true);
      });
    },
    resume() {
      for (const preview of ctx.informers.previews.list()) owe(preview);
    },
    async next(lane) {
      const { subject, receiver: name } = parts(lane);
      const preview = lanePreview(ctx, subject);
      const project = preview && projectOf(preview);
      const ending = preview && previewEnding(preview);
      const notification = project?.spec.notifications?.find((n) => n.name === name);
      if (!preview || !project || !ending || !notification || !wants(notification, ending.event))
        return undefined;
      const value = previewReceipt(ending);
      if (engine.receipts(PREVIEW_NOTIFIED, subject).get(name)?.value === value) return undefined;
      const { namespace } = preview.metadata;
      let receiver;
      try {
        receiver = await readReceiver(secrets, namespace, notification);
      } catch (err) {
        return problem('NotificationFailed', `notification ${name}: ${(err as Error).message}`);
      }
      if (typeof receiver === 'string') return problem('NotificationSecretIncomplete', receiver);
      const facts = {
        event: ending.event,
        severity: severityOf(ending.event),
        project: project.metadata.name,
        namespace,
        bundle: preview.status?.bundle ?? preview.metadata.name,
        commit: ending.commit,
        branch: preview.spec.branch,
        environment: previewEnvironment(preview.spec.number),
        message: ending.message,
        time: ctx.now().toISOString(),
        url: preview.status?.url ?? preview.spec.pullRequestUrl ?? null,
      };
      return {
        request: notificationRequest(receiver, facts),
        secrets: receiverSecrets(receiver),
        receipt: { book: PREVIEW_NOTIFIED, subject, id: name, value },
        refusal: `receiver ${name} (${notification.type}) did not take ${ending.event} of preview ${preview.metadata.name}`,
        labels: { type: notification.type },
      };
    },
    async settled(lane, outcome) {
      const { subject, receiver } = parts(lane);
      const preview = lanePreview(ctx, subject);
      const project = preview && projectOf(preview);
      if (!project) return;
      if (!outcome.ok) return writeProjectProblem(ctx, project, 'Notified', outcome.problem);
      const ending = previewEnding(preview);
      if (outcome.sent.length === 0 || !ending) return;
      await writeProjectCondition(
        ctx,
        project,
        { type: 'Notified', reason: 'Notified' satisfies NotifyReason },
        'True',
        `${ending.event} of preview ${preview.metadata.name} was sent to ${receiver}`,
      );
    },
    count(labels, result) {
      notificationsTotal.inc({ ...labels, result });
    },
  };
}
