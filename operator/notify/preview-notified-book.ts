// The receipt book of a preview's notifications: status.notified of the Preview, the event each
// receiver took and the head commit it was about (each event is told once per commit).
import type { PreviewObject } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import type { Receipt, ReceiptBook } from '../delivery/sink.ts';
import { lanePreview } from '../subjects/previews.ts';
import { statusBook } from '../subjects/status-book.ts';

export const PREVIEW_NOTIFIED = 'preview-notified';

type Notified = NonNullable<NonNullable<PreviewObject['status']>['notified']>;

export const previewNotifiedBook = (ctx: OperatorContext): ReceiptBook =>
  statusBook(ctx, {
    name: PREVIEW_NOTIFIED,
    kind: 'Preview',
    field: 'notified',
    writer: 'notify',
    find: (subject) => lanePreview(ctx, subject),
    entries: (notified: Notified) =>
      notified.map((n): [string, Receipt] => [n.name, { value: `${n.event}@${n.commit ?? ''}` }]),
    shown: (receipts): Notified =>
      [...receipts]
        .filter(([, r]) => r.value !== undefined)
        .map(([name, r]) => {
          const [event, commit] = r.value!.split('@') as [string, string];
          return { name, event, ...(commit ? { commit } : {}) };
        })
        .sort((a, b) => a.name.localeCompare(b.name)),
  });
