// The parts a kind of delivery supplies to the engine (engine.ts); everything else — the queue,
// tries and Retry-After, back-off, leadership terms, receipts and their batched status writes,
// health, logs and metrics — is the engine's. docs/architecture.md ("What a new delivery kind
// touches") walks through one.
//
// A sink's work is cut into lanes (a bundle; a bundle and one receiver; one subscriber webhook):
// a lane is handled by one worker at a time, its deliveries one after another, each asked for
// afresh with next() (so a later one can use what an earlier one made: a deployment's id).
import type { OutboundRequest } from '../../lib/outbound-request.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import type { OperatorContext } from '../context.ts';

/** Why a lane cannot be delivered now: a condition reason of its sink, and what to tell. */
export interface Problem {
  reason: string;
  message: string;
}

/** What a receiver took, kept in the status of the object it is about (a receipt book's entry). */
export interface Receipt {
  /** What was taken (a state, an event, a change's time). */
  value?: string;
  /** The id of what the delivery made there (a deployment), so later ones edit it in place. */
  remoteId?: string;
}

/** Where receipts live: one status field of one kind, read and written whole per object. */
export interface ReceiptBook {
  readonly name: string;
  /** The receipts the object's status shows now (as this process last wrote it); undefined when it is gone. */
  read(subject: string): ReadonlyMap<string, Receipt> | undefined;
  /** Writes these receipts into the object's status (a no-op when it shows them); throws when the write fails. */
  write(subject: string, receipts: ReadonlyMap<string, Receipt>): Promise<void>;
}

/** One request owed to one receiver. */
export interface Delivery {
  request: OutboundRequest;
  /** Values that never appear in a message, log or metric (tokens, receiver URLs, keys). */
  secrets: readonly string[];
  /** Its receipt once taken: in `book`, on `subject`, under `id`. */
  receipt: { book: string; subject: string; id: string; value?: string };
  /** The id of what it made, read from the answer; an answer without one is refused. */
  remoteId?: (answer: unknown) => string | undefined;
  /** The start of the message when it is not taken: "receiver hooks (slack) did not take …". */
  refusal: string;
  /** Labels of the sink's counter besides `result`. */
  labels: Record<string, string>;
  /** An answer that counts as taken although it is not 2xx (GitLab's "cannot transition"). */
  alreadyDone?: (status: number, text: string) => boolean;
}

/** What a lane is owed next: a delivery, a problem that stops it, or nothing. */
export type Next = Delivery | Problem | undefined;

export const isDelivery = (next: Delivery | Problem): next is Delivery => 'request' in next;

/** How a round of a lane ended. */
export type RoundOutcome = { ok: true; sent: readonly Delivery[] } | { ok: false; problem: Problem };

/** How a lane is doing, as the engine keeps it (times in ms on the operator's clock). */
export interface LaneHealth {
  /** Failed rounds in a row. */
  failures: number;
  failingSince?: number;
  problem?: Problem;
  /** When it last took something (brought up to date at most every 10 minutes). */
  deliveredAt?: number;
}

export type DeliveryResult = 'accepted' | 'refused' | 'failed';

/** The lane of a subject that is one object: its `namespace/name`. */
export const laneOf = (subject: { metadata: { namespace: string; name: string } }): string =>
  `${subject.metadata.namespace}/${subject.metadata.name}`;

/** What the engine offers a sink. */
export interface EngineHandle {
  /** Whether this replica delivers now (it leads): a sink writes nothing of its own otherwise. */
  active(): boolean;
  /**
   * The lane may be owed something: handle it, not before a wait its receiver asked for, nor
   * before a failed round's back-off ends unless `now` (a new state to tell, an edited receiver).
   */
  owe(lane: string, options?: { now?: boolean }): void;
  /** The lane is gone (a webhook removed): its health is dropped. */
  forget(lane: string): void;
  health(lane: string): LaneHealth | undefined;
  /** The receipts of `subject` in `book`: its status, and what was taken since. */
  receipts(book: string, subject: string): ReadonlyMap<string, Receipt>;
  /** A status write of the sink's own (health), tried again with back-off until it lands. */
  writeSoon(key: string, write: () => Promise<void>): void;
}

export interface Sink {
  /** In logs and lane keys: commit-status, deployment, notification, subscriber. */
  readonly name: string;
  /** Tries of one delivery (as its receiver asks, or 1 s, 2 s, …) before the round fails; 3 by default. */
  readonly attemptsPerRound?: number;
  /** The condition reason of a delivery that was not taken. */
  readonly failedReason: string;
  /** The receipt books it writes (a book may be shared with another sink). */
  readonly books: readonly ReceiptBook[];
  /** Whether the engine keeps each lane's health while it delivers (shown per receiver). */
  readonly keepsHealth?: boolean;
  /** Starts watching what triggers it; calls `engine.owe(lane)`. */
  attach(engine: EngineHandle): void;
  /** After a (re)start as leader: owe every lane that may not have its latest yet. */
  resume(): void;
  /** Forget what it keeps of the last term (on losing leadership). */
  reset?(): void;
  next(lane: string): Promise<Next>;
  /** A round ended: show it where the sink's health goes (a condition). */
  settled(lane: string, outcome: RoundOutcome): Promise<void>;
  /** The lane's health as its object shows it (after a restart), before the engine knows any. */
  shownHealth?(lane: string): LaneHealth | undefined;
  /** Not tried again (a bundle that finished over a day ago). */
  expired?(lane: string): boolean;
  count(labels: Record<string, string>, result: DeliveryResult): void;
}

/** What every sink is made with (operator/sinks.ts lists them). */
export interface SinkDeps {
  ctx: OperatorContext;
  /** Tokens and receivers, read by name when needed. */
  secrets: SecretReader;
}
