// Tells a StatusPage's subscriber webhooks (spec.webhooks) of every incident or maintenance
// created or updated and every component status change, in Statuspage's webhook format
// (payloads.ts), outside the reconcile path. The status controllers record each change on its
// object (status.announced, announce.ts); this sends it to each webhook that wants it and adds
// the webhook to the record, so nothing is sent twice for one change, after a restart either.
//
// Each webhook is a lane: its pending changes go out one at a time, oldest first. A failure
// (no answer, a 3xx, 4xx or 5xx after 3 tries) stops the lane and tries again after 1 min, then
// twice as late each time up to 1 h; a webhook failing for a day is tried every 6 h. The
// StatusPage's status.webhooks and its WebhooksDelivered condition show each one's health.
// Receiver URLs and keys are read from their Secret when needed and never shown.
import type {
  StatusComponentObject,
  StatusNoticeObject,
  StatusPageObject,
  StatusWebhookReason,
} from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import type { Cached } from '../../lib/informer.ts';
import { objectKey } from '../../lib/informer.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import type { OperatorContext } from '../context.ts';
import { statusWebhooksTotal } from '../metrics.ts';
import { call } from '../outbound/call.ts';
import { receiverSecrets, receiverUrlProblem } from '../outbound/receiver.ts';
import { KeyedMutex } from '../reconcile/keyed-mutex.ts';
import type { TransitionEvents } from '../reconcile/status-writer.ts';
import { oldest } from '../status-page/decide.ts';
import { isNews, type Announced } from './announce.ts';
import { affectedIds, componentFacts, incidentFacts, pageFacts } from './facts.ts';
import { componentPayload, incidentPayload, webhookRequest } from './payloads.ts';

type EntryKind = 'StatusComponent' | 'StatusNotice';
type EntryObject = Cached<StatusComponentObject> | Cached<StatusNoticeObject>;
type Webhook = NonNullable<StatusPageObject['spec']['webhooks']>[number];
type WebhookStatus = NonNullable<NonNullable<StatusPageObject['status']>['webhooks']>[number];

/** Tries of one POST in a round (1 s and 2 s apart, or as Retry-After asks). */
const ATTEMPTS_PER_ROUND = 3;
const FIRST_DELAY_MS = 60_000;
const MAX_DELAY_MS = 3600_000;
/** A webhook failing this long is marked on the StatusPage and tried less often. */
export const FAILING_LONG_MS = 24 * 3600_000;
const LONG_DELAY_MS = 6 * 3600_000;
/** status.webhooks[].deliveredAt is brought up to date at most this often. */
const DELIVERED_AT_EVERY_MS = 10 * 60_000;
const CONDITION = 'WebhooksDelivered';

interface Lane {
  namespace: string;
  name: string;
  /** `<kind>/<object name>` of the changes this webhook is still owed. */
  pending: Set<string>;
  running: boolean;
  retryAt: number;
  timer?: NodeJS.Timeout;
  failures: number;
  failingSince?: number;
  problem?: { reason: StatusWebhookReason; message: string };
  deliveredAt?: number;
}

/** A whole second: creationTimestamp has no finer grain. */
const floorToSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

/** An Event when the WebhooksDelivered condition changes status or reason. */
const deliveryEvents: TransitionEvents = (before, after) => {
  const a = findCondition(before, CONDITION);
  const b = findCondition(after, CONDITION);
  if (!b || (a && a.status === b.status && a.reason === b.reason)) return [];
  if (!a && b.status === 'True') return [];
  return [{ type: b.status === 'True' ? 'Normal' : 'Warning', reason: b.reason, message: b.message }];
};

export class StatusWebhooks {
  readonly #ctx: OperatorContext;
  readonly #secrets: SecretReader;
  readonly #fetch: typeof fetch;
  readonly #lanes = new Map<string, Lane>();
  /** The webhooks that took each object's latest change (also in status.announced once written). */
  readonly #taken = new Map<string, { at: string; names: Set<string> }>();
  readonly #locks = new KeyedMutex();
  readonly #running = new Set<Promise<void>>();
  #stopped = true;

  constructor(ctx: OperatorContext, secrets: SecretReader, fetchImpl: typeof fetch = fetch) {
    this.#ctx = ctx;
    this.#secrets = secrets;
    this.#fetch = fetchImpl;
    const { statusPages, statusComponents, statusNotices } = ctx.informers;
    statusComponents.onEvent((o) => this.#consider('StatusComponent', o.metadata.namespace, o.metadata.name));
    statusNotices.onEvent((o) => this.#consider('StatusNotice', o.metadata.namespace, o.metadata.name));
    statusPages.onEvent((p) => void this.#pageChanged(p.metadata.namespace));
  }

  /** After a (re)start: every change a webhook has not taken yet. */
  resume(): void {
    this.#stopped = false;
    const namespaces = new Set(this.#ctx.informers.statusPages.list().map((p) => p.metadata.namespace));
    for (const namespace of namespaces) void this.#pageChanged(namespace);
  }

  /** On losing leadership: nothing queued survives (the next leader reads status.announced). */
  stop(): void {
    this.#stopped = true;
    for (const lane of this.#lanes.values()) clearTimeout(lane.timer);
    this.#lanes.clear();
    this.#taken.clear();
  }

  /** Resolves when no webhook is being sent to (tests). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  #page(namespace: string): StatusPageObject | undefined {
    return oldest(this.#ctx.informers.statusPages.list(namespace));
  }

  /** A page was added, changed or removed: its webhooks' records, then everything they are owed. */
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
    const taken = this.#taken.get(this.#takenKey(kind, object));
    if (taken?.at === announced.at && taken.names.has(hook.name)) return false;
    if (!hook.components) return true;
    const wanted = new Set(hook.components);
    const { namespace } = object.metadata;
    const components = this.#ctx.informers.statusComponents;
    const covers = (id: number | undefined, parentName: string | undefined) =>
      (id !== undefined && wanted.has(id)) ||
      (parentName !== undefined && wanted.has(components.get(namespace, parentName)?.spec.id ?? 0));
    if (kind === 'StatusComponent') {
      const c = object as StatusComponentObject;
      return covers(c.spec.id, c.spec.parentRef?.name);
    }
    const notice = object as StatusNoticeObject;
    const ids = affectedIds(this.#ctx.informers, notice);
    // A notice about no component in particular concerns every subscriber.
    if (ids.length === 0) return true;
    return (notice.spec.componentRefs ?? []).some((ref) => {
      const c = components.get(namespace, ref.name);
      return !!c && covers(c.spec.id, c.spec.parentRef?.name);
    });
  }

  #takenKey(kind: EntryKind, object: EntryObject): string {
    return `${kind}/${objectKey(object.metadata.namespace, object.metadata.name)}`;
  }

  #webhookStatus(page: StatusPageObject, name: string): WebhookStatus | undefined {
    const status = this.#ctx.status.current(page) as StatusPageObject['status'];
    return status?.webhooks?.find((w) => w.name === name);
  }

  #lane(page: StatusPageObject, name: string): Lane {
    const key = objectKey(page.metadata.namespace, name);
    let lane = this.#lanes.get(key);
    if (!lane) {
      // After a restart the webhook's failing day goes on from what the page shows.
      const shown = this.#webhookStatus(page, name);
      const failingSince = shown?.failingSince ? Date.parse(shown.failingSince) : undefined;
      lane = {
        namespace: page.metadata.namespace,
        name,
        pending: new Set(),
        running: false,
        retryAt: 0,
        failures: failingSince === undefined ? 0 : 1,
        failingSince,
        problem: shown?.lastError ? { reason: 'WebhookFailing', message: shown.lastError } : undefined,
        deliveredAt: shown?.deliveredAt ? Date.parse(shown.deliveredAt) : undefined,
      };
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
    const run = this.#run(lane).finally(() => {
      lane.running = false;
      this.#running.delete(run);
      // Changes that arrived while it ran.
      if (this.#lanes.get(objectKey(lane.namespace, lane.name)) === lane) this.#kick(lane);
    });
    this.#running.add(run);
  }

  /** Sends the lane's pending changes, oldest first, until one fails. */
  async #run(lane: Lane): Promise<void> {
    const batch = [...lane.pending].flatMap((key) => {
      const [kind, name] = key.split('/') as [EntryKind, string];
      const object = this.#object(kind, lane.namespace, name);
      const announced = object && this.#announced(object);
      return object && announced ? [{ key, kind, object, announced }] : [];
    });
    batch.sort((a, b) => a.announced.at.localeCompare(b.announced.at));
    const present = new Set(batch.map((b) => b.key));
    for (const key of lane.pending) if (!present.has(key)) lane.pending.delete(key);
    for (const { key, kind, object: cached } of batch) {
      if (this.#stopped) return;
      const page = this.#page(lane.namespace);
      const hook = page?.spec.webhooks?.find((h) => h.name === lane.name);
      // Re-read: the change may have been replaced or taken since the batch was made.
      const object = this.#object(kind, lane.namespace, cached.metadata.name);
      if (!page || !hook) return;
      if (!object || !this.#owes(page, hook, kind, object)) {
        lane.pending.delete(key);
        continue;
      }
      const problem = await this.#deliver(page, hook, kind, object);
      if (this.#stopped) return;
      if (problem) return this.#failed(lane, problem);
      lane.pending.delete(key);
      await this.#delivered(lane);
    }
  }

  /** One change to one webhook; resolves with why it was not taken, or undefined. */
  async #deliver(
    page: StatusPageObject,
    hook: Webhook,
    kind: EntryKind,
    object: EntryObject,
  ): Promise<Lane['problem']> {
    const announced = this.#announced(object)!;
    const now = this.#ctx.now();
    const facts = pageFacts(this.#ctx.informers, page, now);
    let payload: object | undefined;
    if (kind === 'StatusComponent') {
      const component = componentFacts(
        this.#ctx.informers,
        object as StatusComponentObject,
        page.metadata.name,
      );
      payload =
        component &&
        componentPayload(
          facts,
          component,
          { oldStatus: announced.previous ?? '', newStatus: announced.version, at: announced.at },
          now,
        );
    } else {
      const incident = incidentFacts(this.#ctx.informers, object as StatusNoticeObject, page, now);
      payload = incident && incidentPayload(facts, incident, now);
    }
    if (!payload) return undefined;
    let receiver: { url: string; hmacKey?: string } | string;
    try {
      receiver = await this.#receiver(page.metadata.namespace, hook);
    } catch (err) {
      return { reason: 'WebhookFailing', message: `webhook ${hook.name}: ${(err as Error).message}` };
    }
    if (typeof receiver === 'string') return { reason: 'WebhookSecretIncomplete', message: receiver };
    const result = await call(webhookRequest(receiver.url, receiver.hmacKey, payload), {
      fetch: this.#fetch,
      secrets: receiverSecrets(receiver),
      sleep: (ms) => this.#sleep(ms),
      stopped: () => this.#stopped,
      attempts: ATTEMPTS_PER_ROUND,
    });
    if (this.#stopped && !result.ok) return undefined;
    statusWebhooksTotal.inc({ result: result.ok ? 'accepted' : 'failed' });
    if (!result.ok)
      return {
        reason: 'WebhookFailing',
        message: `webhook ${hook.name} did not take ${kind === 'StatusComponent' ? 'component' : 'notice'} ${object.metadata.name}: ${result.problem}`,
      };
    const takenKey = this.#takenKey(kind, object);
    let taken = this.#taken.get(takenKey);
    if (taken?.at !== announced.at) {
      taken = { at: announced.at, names: new Set() };
      if (this.#taken.size > 50_000) this.#taken.clear();
      this.#taken.set(takenKey, taken);
    }
    taken.names.add(hook.name);
    await this.#persist(kind, object.metadata.namespace, object.metadata.name);
    return undefined;
  }

  /** The webhooks that took the object's change, on the object: after a restart none is sent again. */
  async #persist(kind: EntryKind, namespace: string, name: string): Promise<void> {
    await this.#locks.run(`${kind}/${namespace}/${name}`, async () => {
      const object = this.#object(kind, namespace, name);
      const announced = object && this.#announced(object);
      const taken = object && this.#taken.get(this.#takenKey(kind, object));
      if (!object || !announced || taken?.at !== announced.at) return;
      const deliveredTo = [...new Set([...announced.deliveredTo, ...taken.names])].sort();
      if (deliveredTo.length === announced.deliveredTo.length) return;
      try {
        await this.#ctx.status.write(
          kind,
          object,
          { fields: { announced: { ...announced, deliveredTo } }, conditions: [] },
          () => [],
        );
      } catch (err) {
        // A controller wrote first (409): written again on fresh state; kept in memory meanwhile.
        this.#ctx.log.debug({ err, object: `${namespace}/${name}` }, 'recording a delivery failed; retrying');
        const retry = setTimeout(() => {
          if (!this.#stopped) void this.#persist(kind, namespace, name);
        }, 1000);
        retry.unref?.();
      }
    });
  }

  async #delivered(lane: Lane): Promise<void> {
    const now = this.#ctx.now().getTime();
    const recovered = lane.failures > 0;
    lane.failures = 0;
    lane.retryAt = 0;
    lane.failingSince = undefined;
    lane.problem = undefined;
    const stale = lane.deliveredAt === undefined || now - lane.deliveredAt >= DELIVERED_AT_EVERY_MS;
    if (stale) lane.deliveredAt = now;
    if (recovered || stale) await this.#writePageStatus(lane.namespace);
  }

  async #failed(lane: Lane, problem: NonNullable<Lane['problem']>): Promise<void> {
    const now = this.#ctx.now().getTime();
    lane.failures += 1;
    lane.failingSince ??= now;
    lane.problem = problem;
    const long = now - lane.failingSince >= FAILING_LONG_MS;
    const delay = long ? LONG_DELAY_MS : Math.min(FIRST_DELAY_MS * 2 ** (lane.failures - 1), MAX_DELAY_MS);
    lane.retryAt = now + delay;
    this.#ctx.log.warn(
      { webhook: objectKey(lane.namespace, lane.name), retryInSeconds: Math.round(delay / 1000) },
      problem.message,
    );
    // Written when it says something new (the error, since when, a failing day); else a no-op.
    await this.#writePageStatus(lane.namespace);
  }

  /** The receiver's URL and key from its Secret, or why they cannot be used (no value in it). */
  async #receiver(namespace: string, hook: Webhook): Promise<{ url: string; hmacKey?: string } | string> {
    const where = `webhook ${hook.name}: Secret ${hook.secretRef.name}`;
    const url = await this.#secrets.value(namespace, hook.secretRef.name, 'url', true);
    const problem = receiverUrlProblem(url, where, 'put a token in the path or set hmacKey');
    if (problem || !url) return problem!;
    const hmacKey = await this.#secrets.value(namespace, hook.secretRef.name, 'hmacKey');
    return hmacKey ? { url, hmacKey } : { url };
  }

  /** status.webhooks and WebhooksDelivered from the lanes (and `since` for a new webhook). */
  async #writePageStatus(namespace: string): Promise<void> {
    await this.#locks.run(`StatusPage/${namespace}`, async () => {
      const page = this.#page(namespace);
      if (!page || this.#stopped) return;
      const hooks = page.spec.webhooks ?? [];
      const shown = (this.#ctx.status.current(page) as StatusPageObject['status'])?.webhooks ?? [];
      if (hooks.length === 0 && shown.length === 0) return;
      const now = this.#ctx.now().getTime();
      const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
      const entries = hooks.map((hook): WebhookStatus => {
        const before = shown.find((w) => w.name === hook.name);
        const lane = this.#lanes.get(objectKey(namespace, hook.name));
        const entry: WebhookStatus = { name: hook.name, since: before?.since ?? new Date(now).toISOString() };
        const deliveredAt = lane ? iso(lane.deliveredAt) : before?.deliveredAt;
        const failingSince = lane ? iso(lane.failingSince) : before?.failingSince;
        const lastError = lane ? lane.problem?.message : before?.lastError;
        if (deliveredAt) entry.deliveredAt = deliveredAt;
        if (failingSince) entry.failingSince = failingSince;
        if (failingSince && lastError) entry.lastError = lastError.slice(0, 1024);
        return entry;
      });
      const failing = hooks.flatMap((hook) => {
        const lane = this.#lanes.get(objectKey(namespace, hook.name));
        return lane?.problem && lane.failingSince !== undefined ? [{ lane, problem: lane.problem }] : [];
      });
      const condition =
        failing.length === 0
          ? {
              type: CONDITION,
              status: 'True' as const,
              reason: 'Delivered' satisfies StatusWebhookReason,
              message:
                hooks.length === 0
                  ? 'no subscriber webhooks'
                  : `${hooks.length} subscriber webhook${hooks.length === 1 ? '' : 's'} take what is sent`,
            }
          : {
              type: CONDITION,
              status: 'False' as const,
              reason: failing[0]!.problem.reason,
              message: failing
                .map(({ lane, problem }) => {
                  const since = new Date(lane.failingSince!).toISOString();
                  const long = now - lane.failingSince! >= FAILING_LONG_MS;
                  return `${problem.message} (failing since ${since}${long ? '; failing for a day, tried every 6 hours' : '; tried again with back-off'})`;
                })
                .join('; '),
            };
      try {
        await this.#ctx.status.write(
          'StatusPage',
          page,
          { fields: { webhooks: entries.length > 0 ? entries : null }, conditions: [condition] },
          deliveryEvents,
        );
      } catch (err) {
        // The page's controller wrote first (409): the next page event writes it again.
        this.#ctx.log.debug({ err, namespace }, 'writing the StatusPage webhook status failed; retrying');
        const retry = setTimeout(() => void this.#pageChanged(namespace), 1000);
        retry.unref?.();
      }
    });
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      t.unref?.();
    });
  }
}
