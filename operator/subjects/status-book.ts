// A receipt book kept in one list field of its subject's status (status.reported, status.notified
// of a Bundle or a Preview): read and written whole, written only when it changes, by the sink's
// own status writer. Each sink says how its entries read as receipts and back.
import type { KindName } from '../../lib/kube.ts';
import type { Receipt, ReceiptBook } from '../delivery/sink.ts';
import type { OperatorContext } from '../context.ts';
import type { ObjectWithStatus } from '../reconcile/status-writer.ts';
import type { StatusWriterName } from '../reconcile/status-owners.ts';

export interface StatusBook<O extends ObjectWithStatus, V extends unknown[]> {
  /** The book's name, which deliveries name their receipts by. */
  name: string;
  kind: KindName;
  field: string;
  writer: StatusWriterName;
  /** The subject's object, with the status this process last wrote; undefined when it is gone. */
  find(subject: string): O | undefined;
  /** The field's entries as receipts, by id. */
  entries(shown: V): Array<[string, Receipt]>;
  /** The receipts as the field shows them. */
  shown(receipts: ReadonlyMap<string, Receipt>): V;
}

export function statusBook<O extends ObjectWithStatus, V extends unknown[]>(
  ctx: OperatorContext,
  book: StatusBook<O, V>,
): ReceiptBook {
  const shownNow = (object: O) =>
    ((object.status as Record<string, unknown> | undefined)?.[book.field] ?? []) as V;
  return {
    name: book.name,
    read(subject) {
      const object = book.find(subject);
      return object && new Map(book.entries(shownNow(object)));
    },
    async write(subject, receipts) {
      const object = book.find(subject);
      if (!object) return;
      const value = book.shown(receipts);
      if (JSON.stringify(shownNow(object)) === JSON.stringify(value)) return;
      await ctx.status.write(book.kind, object, {
        writer: book.writer,
        fields: { [book.field]: value },
        conditions: [],
      });
    },
  };
}
