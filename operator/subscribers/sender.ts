// Tells a StatusPage's subscriber webhooks (spec.webhooks) of each change the status controllers
// record on a component or notice (status.announced, announce.ts), in Statuspage's format
// (payloads.ts), outside the reconcile path; who took it is recorded (delivery-records.ts).
// One lane per webhook, oldest change first; a failed round waits 1 min doubling to 1 h, every
// 6 h after a failing day (lanes.ts); health shows on the StatusPage (webhook-health.ts). Receiver URLs and
// keys are read from their Secret when needed and never shown.
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../../crds/index.ts';
import type { Cached } from '../../lib/informer.ts';
import { objectKey } from '../../lib/informer.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import type { OperatorContext } from '../context.ts';
import { statusWebhooksTotal } from '../metrics.ts';
import { call } from '../outbound/call.ts';
import { readReceiver, receiverSecrets } from '../outbound/receiver.ts';
import { Sleeps } from '../outbound/sleeps.ts';
import { oldest } from '../status-page/decide.ts';
import { isNews, type Announced } from './announce.ts';
import { DeliveryRecords } from './delivery-records.ts';
import { laneDelivered, laneFailed, type Lane } from './lanes.ts';
import { PageFactsMemo, componentFacts, incidentFacts, wants } from './facts.ts';
import { componentPayload, incidentPayload, webhookRequest } from './payloads.ts';
import { deliveryEvents, shownHealth, webhookPageStatus, type WebhookStatus } from './webhook-health.ts';

type EntryKind = 'StatusComponent' | 'StatusNotice';
type EntryObject = Cached<StatusComponentObject> | Cached<StatusNoticeObject>;
type Webhook = NonNullable<StatusPageObject['spec']['webhooks']>[number];

/** Tries of one POST in a round (1 s and 2 s apart, or as Retry-After asks). */
const ATTEMPTS_PER_ROUND = 3;
/** A whole second: creationTimestamp has no finer grain. */
const floorToSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

export class StatusWebhooks {
  readonly #ctx: OperatorContext;
  readonly #secrets: SecretReader;
  readonly #fetch: typeof fetch;
  readonly #lanes = new Map<string, Lane>();
  /** The webhooks that took each object's latest change, until status.announced shows them. */
  readonly #records: DeliveryRecords;
  readonly #running = new Set<Promise<void>>();
  /** What a page's webhooks depended on when last looked at: its uid, generation and sinces. */
  readonly #pagesSeen = new Map<string, string>();
  readonly #pageFacts: PageFactsMemo;
  readonly #sleeps = new Sleeps();
  /** Bumped by resume() and stop(): work begun in an earlier term ends and sends nothing more. */
  #term = 0;
  #stopped = true;

  constructor(ctx: OperatorContext, secrets: SecretReader, fetchImpl: typeof fetch) {
    this.#ctx = ctx;
    this.#secrets = secrets;
    this.#fetch = fetchImpl;
    this.#pageFacts = new PageFactsMemo(ctx.informers);
    this.#records = new DeliveryRecords(ctx, (key) => {
      const [kind, namespace, name] = key.split('/') as [EntryKind, string, string];
      const object = this.#object(kind, namespace, name);
      const announced = object && this.#announced(object);
      if (!object || !announced) return undefined;
      const hooks = new Set((this.#page(namespace)?.spec.webhooks ?? []).map((h) => h.name));
      return { kind, object, announced, hooks };
    });
    const { statusPages, statusComponents, statusNotices } = ctx.informers;
    statusComponents.onEvent((o) => this.#consider('StatusComponent', o.metadata.namespace, o.metadata.name));
    statusNotices.onEvent((o) => this.#consider('StatusNotice', o.metadata.namespace, o.metadata.name));
    statusPages.onEvent((p) => this.#pageEvent(p.metadata.namespace));
  }

  /**
   * After a (re)start: every change a webhook has not taken yet, once what an earlier term
   * still had in flight has ended (it records what it sent, so that is not sent again).
   */
  resume(): void {
    this.#term += 1;
    const term = this.#term;
    void this.idle().then(() => {
      if (this.#term !== term) return;
      this.#stopped = false;
      const namespaces = new Set(this.#ctx.informers.statusPages.list().map((p) => p.metadata.namespace));
      for (const namespace of namespaces) this.#pageEvent(namespace);
    });
  }

  /** On losing leadership: nothing queued survives (the next leader reads status.announced). */
  stop(): void {
    this.#term += 1;
    this.#stopped = true;
    for (const lane of this.#lanes.values()) clearTimeout(lane.timer);
    this.#lanes.clear();
    this.#pagesSeen.clear();
    this.#sleeps.wakeAll();
  }

  /** Resolves when nothing is being sent (tests, and resume()). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  #page(namespace: string): StatusPageObject | undefined {
    return oldest(this.#ctx.informers.statusPages.list(namespace));
  }

  /** status.webhooks as this process last wrote it, or as the cache has it. */
  #shownWebhooks(page: StatusPageObject): WebhookStatus[] | undefined {
    return (this.#ctx.status.current(page) as StatusPageObject['status'])?.webhooks;
  }

  #webhookStatus(page: StatusPageObject, name: string): WebhookStatus | undefined {
    return this.#shownWebhooks(page)?.find((w) => w.name === name);
  }

  /**
   * A page event: the webhooks need another look only when the page came or went, its spec
   * changed, or a webhook got its `since` (not on its other status writes or annotations).
   */
  #pageEvent(namespace: string): void {
    if (this.#stopped) return;
    const page = this.#page(namespace);
    // No page (the last one of the namespace was deleted): nothing to look at again but its lanes.
    const sinces =
      page &&
      this.#shownWebhooks(page)
        ?.map((w) => `${w.name}@${w.since}`)
        .join(',');
    const seen = page ? `${page.metadata.uid}/${page.metadata.generation}/${sinces ?? ''}` : '';
    const before = this.#pagesSeen.get(namespace);
    if (before === seen) return;
    this.#pagesSeen.set(namespace, seen);
    // An edited page (a mended URL, a new Secret name) is tried again at once.
    if (before !== undefined && before.split('/')[1] !== page?.metadata.generation?.toString())
      for (const lane of this.#lanes.values())
        if (lane.namespace === namespace) {
          lane.retryAt = 0;
          clearTimeout(lane.timer);
          lane.timer = undefined;
        }
    void this.#pageChanged(namespace);
  }

  /** The webhooks' records on the page, then everything they are owed. */
  async #pageChanged(namespace: string): Promise<void> {
    if (this.#stopped) return;
    const page = this.#page(namespace);
    const hooks = page?.spec.webhooks ?? [];
    for (const [key, lane] of this.#lanes)
      if (lane.namespace === namespace && !hooks.some((h) => h.name === lane.name)) {
        clearTimeout(lane.timer);
        this.#lanes.delete(key);
      }
    if (!page) return;
    await this.#writePageStatus(namespace);
    if (hooks.length === 0) return;
    const { statusComponents, statusNotices } = this.#ctx.informers;
    for (const c of statusComponents.list(namespace))
      this.#consider('StatusComponent', namespace, c.metadata.name);
    for (const n of statusNotices.list(namespace)) this.#consider('StatusNotice', namespace, n.metadata.name);
  }

  #object(kind: EntryKind, namespace: string, name: string): EntryObject | undefined {
    const { statusComponents, statusNotices } = this.#ctx.informers;
    return kind === 'StatusComponent'
      ? statusComponents.get(namespace, name)
      : statusNotices.get(namespace, name);
  }

  #announced(object: EntryObject): Announced | undefined {
    return (this.#ctx.status.current(object) as { announced?: Announced } | undefined)?.announced;
  }

  /** `<kind>/<namespace>/<name>`: an object's key in the delivery records. */
  #takenKey(kind: EntryKind, namespace: string, name: string): string {
    return `${kind}/${objectKey(namespace, name)}`;
  }

  /** Queues the object's latest change for each webhook still owed it. */
  #consider(kind: EntryKind, namespace: string, name: string): void {
    if (this.#stopped) return;
    const page = this.#page(namespace);
    const object = this.#object(kind, namespace, name);
    if (!page?.spec.webhooks?.length || !object) return;
    for (const hook of page.spec.webhooks)
      if (this.#owes(page, hook, kind, object)) {
        const lane = this.#lane(page, hook.name);
        lane.pending.add(`${kind}/${name}`);
        this.#kick(lane);
      }
  }

  /** Whether `hook` is owed the object's latest change. */
  #owes(page: StatusPageObject, hook: Webhook, kind: EntryKind, object: EntryObject): boolean {
    const announced = this.#announced(object);
    if (!announced || !isNews(kind, announced) || announced.deliveredTo.includes(hook.name)) return false;
    const since = this.#webhookStatus(page, hook.name)?.since;
    // Not told of what happened before it was added (and not before it has a since). A notice's
    // first record is dated at its creation, which has no finer grain than a second.
    if (since === undefined) return false;
    const from = announced.previous === undefined ? floorToSecond(Date.parse(since)) : Date.parse(since);
    if (Date.parse(announced.at) < from) return false;
    const { namespace, name } = object.metadata;
    if (this.#records.took(this.#takenKey(kind, namespace, name), announced.at, hook.name)) return false;
    return wants(this.#ctx.informers, hook.components, kind, object);
  }

  #lane(page: StatusPageObject, name: string): Lane {
    const key = objectKey(page.metadata.namespace, name);
    let lane = this.#lanes.get(key);
    if (!lane) {
      const health = shownHealth(this.#webhookStatus(page, name));
      const lanes = { namespace: page.metadata.namespace, name, pending: new Set<string>(), running: false };
      lane = { ...lanes, retryAt: 0, failures: health.failingSince === undefined ? 0 : 1, ...health };
      this.#lanes.set(key, lane);
    }
    return lane;
  }

  #kick(lane: Lane): void {
    if (lane.running || this.#stopped || lane.pending.size === 0) return;
    const wait = lane.retryAt - this.#ctx.now().getTime();
    if (wait > 0) {
      lane.timer ??= setTimeout(() => {
        lane.timer = undefined;
        this.#kick(lane);
      }, wait);
      lane.timer.unref?.();
      return;
    }
    lane.running = true;
    const run = this.#run(lane, this.#term).finally(() => {
      lane.running = false;
      this.#running.delete(run);
      // Changes that arrived while it ran.
      if (this.#lanes.get(objectKey(lane.namespace, lane.name)) === lane) this.#kick(lane);
    });
    this.#running.add(run);
  }

  /** Sends the lane's pending changes, oldest first, until one fails or the term ends. */
  async #run(lane: Lane, term: number): Promise<void> {
    const batch = [...lane.pending].flatMap((key) => {
      const [kind, name] = key.split('/') as [EntryKind, string];
      const object = this.#object(kind, lane.namespace, name);
      const announced = object && this.#announced(object);
      return object && announced ? [{ key, kind, name, at: Date.parse(announced.at) }] : [];
    });
    batch.sort((a, b) => a.at - b.at);
    const present = new Set(batch.map((b) => b.key));
    for (const key of lane.pending) if (!present.has(key)) lane.pending.delete(key);
    let sent = false;
    for (const { key, kind, name } of batch) {
      if (this.#term !== term) return;
      const page = this.#page(lane.namespace);
      const hook = page?.spec.webhooks?.find((h) => h.name === lane.name);
      // Re-read: the change may have been replaced or taken since the batch was made.
      const object = this.#object(kind, lane.namespace, name);
      if (!page || !hook) return;
      if (!object || !this.#owes(page, hook, kind, object)) {
        lane.pending.delete(key);
        continue;
      }
      const problem = await this.#deliver(page, hook, kind, object, term);
      if (this.#term !== term) return;
      if (problem) return this.#failed(lane, problem);
      lane.pending.delete(key);
      sent = true;
    }
    // Delivered, or nothing left that it is owed (a narrower filter, a notice made general).
    if (sent || (lane.pending.size === 0 && lane.failingSince !== undefined)) await this.#delivered(lane);
  }

  /** One change to one webhook; resolves with why it was not taken, or undefined. */
  async #deliver(
    page: StatusPageObject,
    hook: Webhook,
    kind: EntryKind,
    object: EntryObject,
    term: number,
  ): Promise<Lane['problem']> {
    const announced = this.#announced(object)!;
    const now = this.#ctx.now();
    const facts = this.#pageFacts.of(page, now);
    const payload =
      kind === 'StatusComponent'
        ? componentPayload(
            facts,
            componentFacts(this.#ctx.informers, object as StatusComponentObject, page.metadata.name)!,
            { oldStatus: announced.previous ?? '', newStatus: announced.version, at: announced.at },
            now,
          )
        : incidentPayload(
            facts,
            incidentFacts(this.#ctx.informers, object as StatusNoticeObject, page, now)!,
            now,
          );
    let receiver: { url: string; hmacKey?: string } | string;
    try {
      receiver = await readReceiver(
        this.#secrets,
        page.metadata.namespace,
        hook.secretRef.name,
        `webhook ${hook.name}: Secret ${hook.secretRef.name}`,
      );
    } catch (err) {
      return { reason: 'WebhookFailing', message: `webhook ${hook.name}: ${(err as Error).message}` };
    }
    if (typeof receiver === 'string') return { reason: 'WebhookSecretIncomplete', message: receiver };
    const result = await call(webhookRequest(receiver.url, receiver.hmacKey, payload), {
      fetch: this.#fetch,
      secrets: receiverSecrets(receiver),
      sleep: (ms) => this.#sleeps.sleep(ms),
      stopped: () => this.#term !== term,
      attempts: ATTEMPTS_PER_ROUND,
    });
    if (!result.ok) {
      if (this.#term !== term) return undefined;
      statusWebhooksTotal.inc({ result: 'failed' });
      return {
        reason: 'WebhookFailing',
        message: `webhook ${hook.name} did not take ${kind === 'StatusComponent' ? 'component' : 'notice'} ${object.metadata.name}: ${result.problem}`,
      };
    }
    // Taken, even if the term has ended meanwhile: recorded, so it is never sent again.
    statusWebhooksTotal.inc({ result: 'accepted' });
    const { namespace, name } = object.metadata;
    this.#records.add(this.#takenKey(kind, namespace, name), announced.at, hook.name);
    return undefined;
  }

  async #delivered(lane: Lane): Promise<void> {
    if (laneDelivered(lane, this.#ctx.now().getTime())) await this.#writePageStatus(lane.namespace);
  }

  async #failed(lane: Lane, problem: NonNullable<Lane['problem']>): Promise<void> {
    const delay = laneFailed(lane, problem, this.#ctx.now().getTime());
    this.#ctx.log.warn(
      { webhook: objectKey(lane.namespace, lane.name), retryInSeconds: Math.round(delay / 1000) },
      problem.message,
    );
    // Written when it says something new (the error, since when, a failing day); else a no-op.
    await this.#writePageStatus(lane.namespace);
  }

  /** status.webhooks and WebhooksDelivered (and `since` for a new webhook), written when they change. */
  async #writePageStatus(namespace: string, failures = 0): Promise<void> {
    const page = this.#page(namespace);
    if (!page || this.#stopped) return;
    const shown = this.#shownWebhooks(page) ?? [];
    const hooks = page.spec.webhooks ?? [];
    if (hooks.length === 0 && shown.length === 0) return;
    const { webhooks, condition } = webhookPageStatus(
      hooks,
      shown,
      (name) => this.#lanes.get(objectKey(namespace, name)),
      this.#ctx.now().getTime(),
    );
    try {
      await this.#ctx.status.write(
        'StatusPage',
        page,
        { fields: { webhooks }, conditions: [condition] },
        deliveryEvents,
      );
    } catch (err) {
      // The page's controller wrote first (409), or the API server is away.
      this.#records.retry(`StatusPage/${namespace}`, failures, err, () =>
        this.#writePageStatus(namespace, failures + 1),
      );
    }
  }
}
