// The receipt book of notifications: status.notified, the receivers that took the event of how
// the bundle ended.
import type { NotificationEvent } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import { bundleBook } from '../subjects/bundles.ts';

export const NOTIFIED = 'notified';

export const notifiedBook = (ctx: OperatorContext) =>
  bundleBook(
    ctx,
    { field: NOTIFIED, writer: 'notify' },
    (notified) => notified.map((n) => [n.name, { value: n.event }]),
    (receipts) =>
      [...receipts]
        .map(([name, r]) => ({ name, event: r.value as NotificationEvent }))
        .sort((a, b) => a.name.localeCompare(b.name)),
  );
