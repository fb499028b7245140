// The receipt book of what a git provider took for a preview: status.reported of the Preview,
// its comment (with the comment's id, so it is edited in place) and its slipway/preview statuses.
import type { PreviewObject } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import type { Receipt, ReceiptBook } from '../delivery/sink.ts';
import { COMMENT } from '../../providers/preview-report.ts';
import { lanePreview } from '../subjects/previews.ts';

export const PREVIEW_REPORTED = 'preview-reported';
/** Statuses kept besides the comment (the newest; older head commits' need no more). */
const STATUSES_KEPT = 7;

type Reported = NonNullable<NonNullable<PreviewObject['status']>['reported']>;

export function previewBook(ctx: OperatorContext): ReceiptBook {
  return {
    name: PREVIEW_REPORTED,
    read(subject) {
      const preview = lanePreview(ctx, subject);
      return (
        preview &&
        new Map<string, Receipt>(
          (preview.status?.reported ?? []).map((r) => [
            r.id,
            { ...(r.value ? { value: r.value } : {}), ...(r.remoteId ? { remoteId: r.remoteId } : {}) },
          ]),
        )
      );
    },
    async write(subject, receipts) {
      const preview = lanePreview(ctx, subject);
      if (!preview) return;
      const entries: Reported = [...receipts].map(([id, r]) => ({
        id,
        ...(r.value !== undefined ? { value: r.value } : {}),
        ...(r.remoteId !== undefined ? { remoteId: r.remoteId } : {}),
      }));
      const comment = entries.filter((e) => e.id === COMMENT);
      const value = [...comment, ...entries.filter((e) => e.id !== COMMENT).slice(-STATUSES_KEPT)];
      if (JSON.stringify(preview.status?.reported ?? []) === JSON.stringify(value)) return;
      await ctx.status.write('Preview', preview, {
        writer: 'report',
        fields: { reported: value },
        conditions: [],
      });
    },
  };
}
