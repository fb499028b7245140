// StatusComponent and StatusNotice: assign the stable id, check references, and show in status
// what the API will show (id; for notices the current state and when it began and ended).
import type { KubeConfig } from '@kubernetes/client-node';
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../../crds/index.ts';
import type { EventRecorder } from '../../lib/events.ts';
import { Informer, objectKey, type Cached } from '../../lib/informer.ts';
import { kindPath, type SlipwayApi } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import { noticeAt, noticeFromObject } from '../../rules/notice-timeline.ts';
import type { Controller, Reconciler } from '../reconcile/controller.ts';
import { KeyedMutex } from '../reconcile/keyed-mutex.ts';
import { readyEvents, type StatusWriter, type TransitionEvents } from '../reconcile/status-writer.ts';
import { LAST_ID_ANNOTATION, earlierHolder, nextId, parentProblem } from './ids.ts';

/** The status page's entries: the kinds that get an id and show in the status API (not object status). */
type PageEntryKind = 'StatusComponent' | 'StatusNotice';
type PageEntryObject = StatusComponentObject | StatusNoticeObject;

const INDEX_PARENT = 'parent';
const INDEX_ID = 'id';
const pageLocks = new KeyedMutex();

/** `namespace/id` of an object that has an id: finds the holders of an id without a scan. */
const byId = (o: { metadata?: { namespace?: string }; spec?: { id?: number } }) =>
  o.spec?.id === undefined ? [] : [objectKey(o.metadata?.namespace, String(o.spec.id))];

/** The objects of `obj`'s namespace with its id (itself included). */
function sameId<T extends PageEntryObject>(cache: Informer<Cached<T>>, obj: PageEntryObject): Cached<T>[] {
  return obj.spec.id === undefined
    ? []
    : cache.byIndex(INDEX_ID, objectKey(obj.metadata.namespace, String(obj.spec.id)));
}
const INDEX_COMPONENT = 'component';
/** Re-derive a notice's state at least this often, and whenever a dated update comes due. */
const MAX_NOTICE_RECHECK_MS = 60 * 60_000;

export interface StatusPageInformers {
  pages: Informer<Cached<StatusPageObject>>;
  components: Informer<Cached<StatusComponentObject>>;
  notices: Informer<Cached<StatusNoticeObject>>;
}

export function createStatusPageInformers(
  kc: KubeConfig,
  namespace: string | undefined,
  log: Logger,
): StatusPageInformers {
  const ns = (o: { metadata?: { namespace?: string } }) => o.metadata?.namespace ?? '';
  return {
    pages: new Informer<Cached<StatusPageObject>>(kc, kindPath('StatusPage', namespace), log),
    components: new Informer<Cached<StatusComponentObject>>(kc, kindPath('StatusComponent', namespace), log)
      .addIndex(INDEX_PARENT, (c) => (c.spec?.parentRef ? [objectKey(ns(c), c.spec.parentRef.name)] : []))
      .addIndex(INDEX_ID, byId),
    notices: new Informer<Cached<StatusNoticeObject>>(kc, kindPath('StatusNotice', namespace), log)
      .addIndex(INDEX_COMPONENT, (n) => (n.spec?.componentRefs ?? []).map((r) => objectKey(ns(n), r.name)))
      .addIndex(INDEX_ID, byId),
  };
}

export interface StatusPageContext {
  slipway: SlipwayApi;
  events: EventRecorder;
  status: StatusWriter;
  log: Logger;
  now: () => Date;
}

/** Status-page objects are many (thousands of components): an Event only when one has a problem. */
const problemEvents: TransitionEvents = (before, after) =>
  readyEvents(before, after).filter((e) => e.type === 'Warning');

/** Maps every change to the objects whose answer it can change. */
export function watchStatusPageEntries(
  informers: StatusPageInformers,
  components: Controller,
  notices: Controller,
  pages?: Controller,
) {
  const all = (namespace: string) => {
    for (const p of informers.pages.list(namespace)) pages?.enqueue(namespace, p.metadata.name);
    for (const c of informers.components.list(namespace)) components.enqueue(namespace, c.metadata.name);
    for (const n of informers.notices.list(namespace)) notices.enqueue(namespace, n.metadata.name);
  };
  informers.pages.onEvent((p) => all(p.metadata.namespace));
  informers.components.onEvent((c) => {
    const { namespace, name } = c.metadata;
    components.enqueue(namespace, name);
    for (const child of informers.components.byIndex(INDEX_PARENT, objectKey(namespace, name))) {
      components.enqueue(namespace, child.metadata.name);
    }
    for (const n of informers.notices.byIndex(INDEX_COMPONENT, objectKey(namespace, name))) {
      notices.enqueue(namespace, n.metadata.name);
    }
    // An id freed or taken can settle a DuplicateId elsewhere in the namespace.
    for (const other of sameId(informers.components, c)) components.enqueue(namespace, other.metadata.name);
  });
  informers.notices.onEvent((n) => {
    notices.enqueue(n.metadata.namespace, n.metadata.name);
    for (const other of sameId(informers.notices, n))
      notices.enqueue(n.metadata.namespace, other.metadata.name);
  });
}

export class PageEntryReconciler implements Reconciler {
  private readonly kind: PageEntryKind;
  private readonly ctx: StatusPageContext;
  private readonly informers: StatusPageInformers;

  constructor(kind: PageEntryKind, ctx: StatusPageContext, informers: StatusPageInformers) {
    this.kind = kind;
    this.ctx = ctx;
    this.informers = informers;
  }

  private get cache(): Informer<Cached<PageEntryObject>> {
    return (this.kind === 'StatusComponent' ? this.informers.components : this.informers.notices) as Informer<
      Cached<PageEntryObject>
    >;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const obj = this.cache.get(namespace, name);
    if (!obj || obj.metadata.deletionTimestamp) return;
    if (obj.spec.id === undefined) return this.assignId(obj);
    await this.recordHandSetId(namespace, obj.spec.id);

    const problem = this.problem(obj);
    const now = this.ctx.now();
    const ready = problem
      ? { type: 'Ready', status: 'False' as const, ...problem }
      : {
          type: 'Ready',
          status: 'True' as const,
          reason: 'Published',
          message: `shown in the status API as id ${obj.spec.id}`,
        };
    const fields: Record<string, unknown> = { id: obj.spec.id, observedGeneration: obj.metadata.generation };
    let result: HandlerResult | void = undefined;
    if (this.kind === 'StatusNotice') {
      const derived = this.noticeStatus(obj as StatusNoticeObject, now);
      Object.assign(fields, derived.status);
      result = derived.recheck;
    }
    await this.ctx.status.write(this.kind, obj, { fields, conditions: [ready] }, problemEvents);
    return result;
  }

  private async assignId(obj: Cached<PageEntryObject>): Promise<void> {
    const { namespace, name } = obj.metadata;
    const page = oldest(this.informers.pages.list(namespace));
    if (!page) {
      const ready = {
        type: 'Ready',
        status: 'False' as const,
        reason: 'NoStatusPage',
        message: 'waiting for a StatusPage in this namespace to assign an id',
      };
      // No Event: without a page, every component and notice of the namespace waits at once.
      await this.ctx.status.write(this.kind, obj, { conditions: [ready] }, () => []);
      return;
    }
    const inUse = this.cache.list(namespace).flatMap((o) => (o.spec.id === undefined ? [] : [o.spec.id]));
    const id = await this.raiseHighWater(namespace, page.metadata.name, (mark) => nextId(mark, inUse));
    await this.ctx.slipway.patch(this.kind, namespace, name, { spec: { id } });
    await this.ctx.events.normal(target(this.kind, obj), 'IdAssigned', `assigned id ${id}`);
    this.ctx.log.info({ kind: this.kind, object: `${namespace}/${name}`, id }, 'assigned status id');
  }

  /**
   * Moves the page's high-water mark to `next(current mark)` and returns it. The page is read
   * from the API server, not the cache: its resourceVersion guards the mark against a concurrent
   * writer (a conflict is retried with backoff).
   */
  private async raiseHighWater(
    namespace: string,
    pageName: string,
    next: (mark: string | undefined) => number,
  ): Promise<number> {
    // One writer of a page's marks at a time in this process (components and notices alike), so
    // the resourceVersion guard only trips when another process wrote.
    return pageLocks.run(`${namespace}/${pageName}`, async () => {
      const annotation = LAST_ID_ANNOTATION[this.kind];
      const fresh = await this.ctx.slipway.get<StatusPageObject>('StatusPage', namespace, pageName);
      const current = fresh.metadata.annotations?.[annotation];
      const id = next(current);
      if (String(id) !== current) {
        await this.ctx.slipway.patch('StatusPage', namespace, pageName, {
          metadata: {
            resourceVersion: fresh.metadata.resourceVersion,
            annotations: { [annotation]: String(id) },
          },
        });
      }
      return id;
    });
  }

  /** An id set by hand also counts as used for good, so it is never handed out after its object is gone. */
  private async recordHandSetId(namespace: string, id: number): Promise<void> {
    const page = oldest(this.informers.pages.list(namespace));
    const mark = Number(page?.metadata.annotations?.[LAST_ID_ANNOTATION[this.kind]] ?? 0);
    if (!page || mark >= id) return;
    await this.raiseHighWater(namespace, page.metadata.name, (current) =>
      Math.max(Number(current ?? 0) || 0, id),
    );
  }

  private problem(obj: Cached<PageEntryObject>): { reason: string; message: string } | undefined {
    const { namespace, name } = obj.metadata;
    const holder = earlierHolder(obj, sameId(this.cache, obj));
    if (holder) {
      return {
        reason: 'DuplicateId',
        message: `id ${obj.spec.id} already belongs to ${holder.metadata.name}`,
      };
    }
    if (this.kind === 'StatusComponent') {
      const components = this.informers.components;
      return parentProblem(name, (n) => {
        const c = components.get(namespace, n);
        return c ? (c.spec.parentRef?.name ?? null) : undefined;
      });
    }
    const missing = ((obj as StatusNoticeObject).spec.componentRefs ?? [])
      .map((r) => r.name)
      .filter((n) => !this.informers.components.get(namespace, n));
    if (missing.length > 0)
      return { reason: 'ComponentNotFound', message: `no such component: ${missing.join(', ')}` };
    return undefined;
  }

  private noticeStatus(obj: StatusNoticeObject, now: Date) {
    const notice = noticeFromObject(obj);
    if (!notice) return { status: {}, recheck: undefined };
    const at = noticeAt(notice, now);
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    // The state moves with the clock when a dated update or the window's edges come due.
    const upcoming = [...notice.updates.map((u) => u.at), notice.beginsAt ?? 0, notice.endsAt ?? 0]
      .filter((t) => t > now.getTime())
      .sort((a, b) => a - b)[0];
    const recheck = {
      requeueAfterMs: Math.min(MAX_NOTICE_RECHECK_MS, (upcoming ?? Infinity) - now.getTime() + 1000),
    };
    return {
      status: { state: at.state ?? null, beganAt: iso(at.beganAt), endedAt: iso(at.endedAt) },
      recheck,
    };
  }
}

function oldest<T extends { metadata: { name: string; creationTimestamp?: string } }>(
  list: readonly T[],
): T | undefined {
  return [...list].sort(
    (a, b) =>
      (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
      a.metadata.name.localeCompare(b.metadata.name),
  )[0];
}

function target(kind: PageEntryKind, obj: PageEntryObject) {
  return { apiVersion: 'slipway.dev/v1alpha1', kind, metadata: obj.metadata };
}

/** A StatusPage is Ready when it is the one page of its namespace (the oldest wins). */
export class StatusPageReconciler implements Reconciler {
  private readonly ctx: StatusPageContext;
  private readonly informers: StatusPageInformers;

  constructor(ctx: StatusPageContext, informers: StatusPageInformers) {
    this.ctx = ctx;
    this.informers = informers;
  }

  async reconcile(namespace: string, name: string): Promise<void> {
    const page = this.informers.pages.get(namespace, name);
    if (!page || page.metadata.deletionTimestamp) return;
    const first = oldest(this.informers.pages.list(namespace));
    const ready =
      first && first.metadata.name !== name
        ? {
            type: 'Ready',
            status: 'False' as const,
            reason: 'DuplicateStatusPage',
            message: `${first.metadata.name} is this namespace's status page; remove this one`,
          }
        : {
            type: 'Ready',
            status: 'True' as const,
            reason: 'Published',
            message: 'served by the status API',
          };
    await this.ctx.status.write(
      'StatusPage',
      page,
      { fields: { observedGeneration: page.metadata.generation }, conditions: [ready] },
      problemEvents,
    );
  }
}
