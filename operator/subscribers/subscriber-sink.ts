// Tells a StatusPage's subscriber webhooks (spec.webhooks) of each change the status controllers
// record on a component or notice (status.announced, rules/announced.ts), in Statuspage's
// format (payloads.ts). A lane is one webhook (`namespace/webhook`), its changes oldest first;
// who took a change is its receipt, in the object's status.announced.deliveredTo. Health shows
// on the StatusPage (subscriber-health.ts). Receiver URLs and keys are read from their Secret when
// needed and never shown.
import type {
  StatusComponentObject,
  StatusNoticeObject,
  StatusPageObject,
  StatusWebhookReason,
} from '../../crds/index.ts';
import type { Cached } from '../../lib/informer.ts';
import { objectKey } from '../../lib/informer.ts';
import { oldest } from '../../rules/oldest.ts';
import type { OperatorContext } from '../context.ts';
import { readReceiver, receiverSecrets } from '../delivery/receiver.ts';
import type { EngineHandle, Problem, Receipt, ReceiptBook, Sink, SinkDeps } from '../delivery/sink.ts';
import { statusWebhooksTotal } from '../metrics.ts';
import { isNews, type Announced } from '../../rules/announced.ts';
import { PageFactsMemo, componentFacts, incidentFacts, wants } from './facts.ts';
import { componentPayload, incidentPayload, webhookRequest } from './payloads.ts';
import { deliveryEvents, shownHealth, webhookPageStatus, type WebhookStatus } from './subscriber-health.ts';

type EntryKind = 'StatusComponent' | 'StatusNotice';
type EntryObject = Cached<StatusComponentObject> | Cached<StatusNoticeObject>;
type Webhook = NonNullable<StatusPageObject['spec']['webhooks']>[number];

const ANNOUNCED = 'announced';
/** A whole second: creationTimestamp has no finer grain. */
const floorToSecond = (ms: number) => Math.floor(ms / 1000) * 1000;
const problem = (reason: StatusWebhookReason, message: string): Problem => ({ reason, message });

/** The caches' view of a namespace's page, its components and notices. */
function pageView(ctx: OperatorContext) {
  const { statusPages, statusComponents, statusNotices } = ctx.informers;
  const view = {
    page: (namespace: string) => oldest(statusPages.list(namespace)),
    object: (kind: EntryKind, namespace: string, name: string): EntryObject | undefined =>
      kind === 'StatusComponent' ? statusComponents.get(namespace, name) : statusNotices.get(namespace, name),
    announced: (object: EntryObject) =>
      (ctx.status.current(object) as { announced?: Announced } | undefined)?.announced,
    /** status.webhooks as this process last wrote it, or as the cache has it. */
    shown: (page: StatusPageObject): WebhookStatus[] | undefined =>
      (ctx.status.current(page) as StatusPageObject['status'])?.webhooks,
    /** `<kind>/<namespace>/<name>`: a receipt's subject. */
    subject: (kind: EntryKind, object: EntryObject) =>
      `${kind}/${objectKey(object.metadata.namespace, object.metadata.name)}`,
    entries: (namespace: string): Array<[EntryKind, EntryObject]> => [
      ...statusComponents.list(namespace).map((c): [EntryKind, EntryObject] => ['StatusComponent', c]),
      ...statusNotices.list(namespace).map((n): [EntryKind, EntryObject] => ['StatusNotice', n]),
    ],
  };
  return view;
}

/** status.announced.deliveredTo: the webhooks that took the object's latest change (its `at`). */
function announcedBook(ctx: OperatorContext): ReceiptBook {
  const view = pageView(ctx);
  const current = (subject: string) => {
    const [kind, namespace, name] = subject.split('/') as [EntryKind, string, string];
    const object = view.object(kind, namespace, name);
    const announced = object && view.announced(object);
    return object && announced && { kind, object, announced, namespace };
  };
  return {
    name: ANNOUNCED,
    read(subject) {
      const now = current(subject);
      return (
        now &&
        new Map(
          now.announced.deliveredTo.map((hook): [string, Receipt] => [hook, { value: now.announced.at }]),
        )
      );
    },
    async write(subject, receipts) {
      const now = current(subject);
      if (!now) return;
      const hooks = new Set((view.page(now.namespace)?.spec.webhooks ?? []).map((h) => h.name));
      // Receipts of an older change are not this change's: it starts with no webhooks.
      const deliveredTo = [...receipts]
        .filter(([hook, r]) => r.value === now.announced.at && hooks.has(hook))
        .map(([hook]) => hook)
        .sort();
      if (deliveredTo.join() === [...now.announced.deliveredTo].sort().join()) return;
      await ctx.status.write(
        now.kind,
        now.object,
        { writer: 'subscribers', fields: { announced: { ...now.announced, deliveredTo } }, conditions: [] },
        () => [],
      );
    },
  };
}

export function subscriberSink({ ctx, secrets }: SinkDeps): Sink {
  let engine: EngineHandle;
  const view = pageView(ctx);
  const pageFacts = new PageFactsMemo(ctx.informers);
  /** What a page's webhooks depended on when last looked at: its uid, generation and sinces. */
  const pagesSeen = new Map<string, string>();
  /** The webhooks a page had when last looked at: the lanes of those it lost are forgotten. */
  const hooksSeen = new Map<string, string[]>();
  const webhookStatus = (page: StatusPageObject, name: string) =>
    view.shown(page)?.find((w) => w.name === name);

  /** Whether `hook` is owed the object's latest change. */
  const owes = (page: StatusPageObject, hook: Webhook, kind: EntryKind, object: EntryObject): boolean => {
    const announced = view.announced(object);
    if (!announced || !isNews(kind, announced)) return false;
    if (engine.receipts(ANNOUNCED, view.subject(kind, object)).get(hook.name)?.value === announced.at)
      return false;
    const since = webhookStatus(page, hook.name)?.since;
    // Not told of what happened before it was added (and not before it has a since). A notice's
    // first record is dated at its creation, which has no finer grain than a second.
    if (since === undefined) return false;
    const from = announced.previous === undefined ? floorToSecond(Date.parse(since)) : Date.parse(since);
    if (Date.parse(announced.at) < from) return false;
    return wants(ctx.informers, hook.components, kind, object);
  };

  /** status.webhooks and WebhooksDelivered (and `since` for a new webhook), written when they change. */
  const writePageStatus = async (namespace: string): Promise<void> => {
    const page = view.page(namespace);
    if (!page) return;
    const shown = view.shown(page) ?? [];
    const hooks = page.spec.webhooks ?? [];
    if (hooks.length === 0 && shown.length === 0) return;
    const { webhooks, condition } = webhookPageStatus(
      hooks,
      shown,
      (name) => engine.health(`${namespace}/${name}`),
      ctx.now().getTime(),
    );
    await ctx.status.write(
      'StatusPage',
      page,
      { writer: 'subscribers', fields: { webhooks }, conditions: [condition] },
      deliveryEvents,
    );
  };
  const showHealth = (namespace: string) =>
    engine.writeSoon(`StatusPage/${namespace}`, () => writePageStatus(namespace));

  /** An object changed: each webhook still owed its latest change is owed it. */
  const consider = (kind: EntryKind, object: EntryObject) => {
    const page = view.page(object.metadata.namespace);
    for (const hook of page?.spec.webhooks ?? [])
      if (owes(page!, hook, kind, object)) engine.owe(`${page!.metadata.namespace}/${hook.name}`);
  };

  /**
   * A page event: the webhooks need another look only when the page came or went, its spec
   * changed, or a webhook got its `since` (not on its other status writes or annotations).
   */
  const pageEvent = (namespace: string) => {
    if (!engine.active()) return;
    const page = view.page(namespace);
    const sinces =
      page &&
      view
        .shown(page)
        ?.map((w) => `${w.name}@${w.since}`)
        .join(',');
    const seen = page ? `${page.metadata.uid}/${page.metadata.generation}/${sinces ?? ''}` : '';
    const before = pagesSeen.get(namespace);
    if (before === seen) return;
    pagesSeen.set(namespace, seen);
    const hooks = page?.spec.webhooks ?? [];
    for (const name of hooksSeen.get(namespace) ?? [])
      if (!hooks.some((h) => h.name === name)) engine.forget(`${namespace}/${name}`);
    hooksSeen.set(
      namespace,
      hooks.map((h) => h.name),
    );
    if (!page) return;
    // An edited page (a mended URL, a new Secret name) is tried again at once.
    const edited = before !== undefined && before.split('/')[1] !== page.metadata.generation?.toString();
    showHealth(namespace);
    for (const hook of hooks) engine.owe(`${namespace}/${hook.name}`, { now: edited });
  };

  return {
    name: 'subscriber',
    failedReason: 'WebhookFailing' satisfies StatusWebhookReason,
    books: [announcedBook(ctx)],
    keepsHealth: true,
    attach(handle) {
      engine = handle;
      const { statusPages, statusComponents, statusNotices } = ctx.informers;
      statusComponents.onEvent((o) => consider('StatusComponent', o));
      statusNotices.onEvent((o) => consider('StatusNotice', o));
      statusPages.onEvent((p) => pageEvent(p.metadata.namespace));
    },
    resume() {
      for (const namespace of new Set(ctx.informers.statusPages.list().map((p) => p.metadata.namespace)))
        pageEvent(namespace);
    },
    reset() {
      pagesSeen.clear();
      hooksSeen.clear();
    },
    shownHealth(lane) {
      const [namespace, name] = lane.split('/') as [string, string];
      const page = view.page(namespace);
      return shownHealth(page && webhookStatus(page, name));
    },
    async next(lane) {
      const [namespace, name] = lane.split('/') as [string, string];
      const page = view.page(namespace);
      const hook = page?.spec.webhooks?.find((h) => h.name === name);
      if (!page || !hook) return undefined;
      // The oldest change it is owed first.
      const at = (o: EntryObject) => Date.parse(view.announced(o)!.at);
      const [first] = view
        .entries(namespace)
        .filter(([kind, object]) => owes(page, hook, kind, object))
        .sort((a, b) => at(a[1]) - at(b[1]));
      if (!first) return undefined;
      const [kind, object] = first;
      const announced = view.announced(object)!;
      const now = ctx.now();
      const facts = pageFacts.of(page, now);
      const payload =
        kind === 'StatusComponent'
          ? componentPayload(
              facts,
              componentFacts(ctx.informers, object as StatusComponentObject, page.metadata.name)!,
              { oldStatus: announced.previous ?? '', newStatus: announced.version, at: announced.at },
              now,
            )
          : incidentPayload(
              facts,
              incidentFacts(ctx.informers, object as StatusNoticeObject, page, now)!,
              now,
            );
      let receiver: { url: string; hmacKey?: string } | string;
      try {
        receiver = await readReceiver(
          secrets,
          namespace,
          hook.secretRef.name,
          `webhook ${hook.name}: Secret ${hook.secretRef.name}`,
        );
      } catch (err) {
        return problem('WebhookFailing', `webhook ${hook.name}: ${(err as Error).message}`);
      }
      if (typeof receiver === 'string') return problem('WebhookSecretIncomplete', receiver);
      return {
        request: webhookRequest(receiver.url, receiver.hmacKey, payload),
        secrets: receiverSecrets(receiver),
        receipt: { book: ANNOUNCED, subject: view.subject(kind, object), id: hook.name, value: announced.at },
        refusal: `webhook ${hook.name} did not take ${kind === 'StatusComponent' ? 'component' : 'notice'} ${object.metadata.name}`,
        labels: {},
      };
    },
    async settled(lane) {
      showHealth(lane.split('/')[0]!);
    },
    count(labels, result) {
      statusWebhooksTotal.inc({ ...labels, result });
    },
  };
}
