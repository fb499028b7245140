// What receivers took: kept in memory the moment they take it (so it is never sent again while
// the status write waits), and written into the status of the object it is about through its
// receipt book, one write per object for everything taken within a moment (so a restart never
// sends it again either). A receipt the status shows is dropped from memory; one a book does not
// keep (a pending commit status) is dropped a day after it was taken, once no write waits for it.
import type { Receipt, ReceiptBook } from './sink.ts';
import type { LaterWrites } from './later-writes.ts';

/** Receipts taken within this long are written in one status write. */
const BATCH_MS = 250;
/** A receipt that its status does not show is kept in memory this long (a bundle's retry window). */
const KEEP_MS = 24 * 3600_000;

interface Taken {
  receipts: Map<string, Receipt>;
  at: number;
}

export class ReceiptStore {
  readonly #books = new Map<string, ReceiptBook>();
  readonly #writes: LaterWrites;
  readonly #now: () => number;
  /** By `<book>|<subject>`. */
  readonly #taken = new Map<string, Taken>();
  #sweptAt = 0;

  constructor(books: Iterable<ReceiptBook>, writes: LaterWrites, now: () => number) {
    for (const book of books) this.#books.set(book.name, book);
    this.#writes = writes;
    this.#now = now;
  }

  /** What the subject's status shows, with what was taken since on top. */
  of(bookName: string, subject: string): ReadonlyMap<string, Receipt> {
    const shown = this.#book(bookName).read(subject);
    const taken = this.#taken.get(`${bookName}|${subject}`)?.receipts;
    if (!taken) return shown ?? new Map();
    return new Map([...(shown ?? []), ...taken]);
  }

  /** A receiver took it: remembered now, written shortly. */
  took(bookName: string, subject: string, id: string, receipt: Receipt): void {
    const key = `${bookName}|${subject}`;
    const now = this.#now();
    this.#sweep(now);
    let taken = this.#taken.get(key);
    if (!taken) {
      taken = { receipts: new Map(), at: now };
      this.#taken.set(key, taken);
    }
    const before = taken.receipts.get(id) ?? this.#book(bookName).read(subject)?.get(id);
    taken.receipts.set(id, { ...before, ...definedOf(receipt) });
    taken.at = now;
    this.#writes.schedule(key, BATCH_MS, () => this.#write(bookName, subject));
  }

  /** Drops everything remembered (a new term reads the statuses). */
  clear(): void {
    this.#taken.clear();
  }

  async #write(bookName: string, subject: string): Promise<void> {
    const key = `${bookName}|${subject}`;
    const book = this.#book(bookName);
    const shown = book.read(subject);
    if (!shown) {
      this.#taken.delete(key);
      return;
    }
    await book.write(subject, this.of(bookName, subject));
    // What the status shows now needs no memory; the rest waits for its hour.
    const after = book.read(subject);
    const taken = this.#taken.get(key);
    if (!taken) return;
    for (const [id, receipt] of taken.receipts) if (same(after?.get(id), receipt)) taken.receipts.delete(id);
    if (taken.receipts.size === 0) this.#taken.delete(key);
  }

  #book(name: string): ReceiptBook {
    const book = this.#books.get(name);
    if (!book) throw new Error(`no receipt book ${name}`);
    return book;
  }

  /** Receipts no status shows, a day old, with no write waiting for them: at most once a minute. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    for (const [key, taken] of this.#taken)
      if (now - taken.at > KEEP_MS && !this.#writes.waits(key)) this.#taken.delete(key);
  }
}

const definedOf = (receipt: Receipt): Receipt => ({
  ...(receipt.value !== undefined ? { value: receipt.value } : {}),
  ...(receipt.remoteId !== undefined ? { remoteId: receipt.remoteId } : {}),
});

const same = (a: Receipt | undefined, b: Receipt) =>
  a !== undefined && a.value === b.value && a.remoteId === b.remoteId;
