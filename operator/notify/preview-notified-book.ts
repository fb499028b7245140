// The receipt book of a preview's notifications: status.notified of the Preview, the event each
// receiver took and the head commit it was about (each event is told once per commit).
import type { PreviewObject } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import type { Receipt, ReceiptBook } from '../delivery/sink.ts';
import { lanePreview } from '../subjects/previews.ts';

export const PREVIEW_NOTIFIED = 'preview-notified';

type Notified = NonNullable<NonNullable<PreviewObject['status']>['notified']>;

export function previewNotifiedBook(ctx: OperatorContext): ReceiptBook {
  return {
    name: PREVIEW_NOTIFIED,
    read(subject) {
      const preview = lanePreview(ctx, subject);
      return (
        preview &&
        new Map<string, Receipt>(
          (preview.status?.notified ?? []).map((n) => [n.name, { value: `${n.event}@${n.commit ?? ''}` }]),
        )
      );
    },
    async write(subject, receipts) {
      const preview = lanePreview(ctx, subject);
      if (!preview) return;
      const value: Notified = [...receipts]
        .filter(([, r]) => r.value !== undefined)
        .map(([name, r]) => {
          const [event, commit] = r.value!.split('@') as [string, string];
          return { name, event, ...(commit ? { commit } : {}) };
        })
        .sort((a, b) => a.name.localeCompare(b.name));
      if (JSON.stringify(preview.status?.notified ?? []) === JSON.stringify(value)) return;
      await ctx.status.write('Preview', preview, {
        writer: 'notify',
        fields: { notified: value },
        conditions: [],
      });
    },
  };
}
