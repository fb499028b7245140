// The receipt book of what a git provider took for a preview: status.reported of the Preview,
// its comment (with the comment's id, so it is edited in place) and its slipway/preview statuses.
import type { PreviewObject } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import type { Receipt, ReceiptBook } from '../delivery/sink.ts';
import { COMMENT } from '../../providers/preview-report.ts';
import { lanePreview } from '../subjects/previews.ts';
import { statusBook } from '../subjects/status-book.ts';

export const PREVIEW_REPORTED = 'preview-reported';
/** Statuses kept besides the comment (the newest; older head commits' need no more). */
const STATUSES_KEPT = 7;

type Reported = NonNullable<NonNullable<PreviewObject['status']>['reported']>;

export const previewBook = (ctx: OperatorContext): ReceiptBook =>
  statusBook(ctx, {
    name: PREVIEW_REPORTED,
    kind: 'Preview',
    field: 'reported',
    writer: 'report',
    find: (subject) => lanePreview(ctx, subject),
    entries: (reported: Reported) =>
      reported.map((r): [string, Receipt] => [
        r.id,
        { ...(r.value ? { value: r.value } : {}), ...(r.remoteId ? { remoteId: r.remoteId } : {}) },
      ]),
    shown(receipts): Reported {
      const entries: Reported = [...receipts].map(([id, r]) => ({
        id,
        ...(r.value !== undefined ? { value: r.value } : {}),
        ...(r.remoteId !== undefined ? { remoteId: r.remoteId } : {}),
      }));
      const comment = entries.filter((e) => e.id === COMMENT);
      return [...comment, ...entries.filter((e) => e.id !== COMMENT).slice(-STATUSES_KEPT)];
    },
  });
