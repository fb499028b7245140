// The status kinds' controllers, shaped like the others: they read the shared informer caches,
// ask decide.ts, and hand Ready (and a notice's derived state) to the status writer.
// StatusComponent and StatusNotice: assign the stable id (page-ids.ts), check references, and
// show in status what the API will show. StatusPage: the one page of its namespace.
import {
  API_VERSION,
  type ComponentState,
  type StatusComponentObject,
  type StatusNoticeObject,
  type StatusPageObject,
} from '../../crds/index.ts';
import type { Cached, Informer } from '../../lib/informer.ts';
import { objectKey } from '../../lib/informer.ts';
import type { HandlerResult } from '../../lib/queue.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX } from '../informers.ts';
import type { Reconciler } from '../reconcile/controller.ts';
import { readyEvents, type TransitionEvents } from '../reconcile/status-writer.ts';
import {
  NO_STATUS_PAGE,
  decideEntry,
  decidePage,
  noticeStatus,
  type PageEntryKind,
  type PageEntryObject,
} from './decide.ts';
import { shownStateOf } from '../../rules/group-state.ts';
import { oldest } from '../../rules/oldest.ts';
import { componentVersion, nextAnnounced, noticeVersion, type Announced } from '../../rules/announced.ts';
import { nextId } from './ids.ts';
import type { PageIds } from './page-ids.ts';

/** What the status controllers use of the operator's context. */
export type StatusPageContext = Pick<
  OperatorContext,
  'informers' | 'slipway' | 'events' | 'status' | 'log' | 'now'
>;

/** Status-page objects are many (thousands of components): an Event only when one has a problem. */
const problemEvents: TransitionEvents = (before, after) =>
  readyEvents(before, after).filter((e) => e.type === 'Warning');

export class PageEntryReconciler implements Reconciler {
  private readonly kind: PageEntryKind;
  private readonly ctx: StatusPageContext;
  private readonly ids: PageIds;

  constructor(kind: PageEntryKind, ctx: StatusPageContext, ids: PageIds) {
    this.kind = kind;
    this.ctx = ctx;
    this.ids = ids;
  }

  private get cache(): Informer<Cached<PageEntryObject>> {
    const { statusComponents, statusNotices } = this.ctx.informers;
    return (this.kind === 'StatusComponent' ? statusComponents : statusNotices) as Informer<
      Cached<PageEntryObject>
    >;
  }

  async reconcile(namespace: string, name: string): Promise<HandlerResult | void> {
    const entry = this.cache.get(namespace, name);
    if (!entry || entry.metadata.deletionTimestamp) return;
    const page = oldest(this.ctx.informers.statusPages.list(namespace));
    if (entry.spec.id === undefined) return this.assignId(entry, page);
    await this.ids.recordHandSet(this.kind, page, entry.spec.id);

    const components = this.ctx.informers.statusComponents;
    const ready = decideEntry(this.kind, entry, {
      sameId: this.cache.byIndex(INDEX.statusId, objectKey(namespace, String(entry.spec.id))),
      parentOf: (n) => {
        const c = components.get(namespace, n);
        return c ? (c.spec.parentRef?.name ?? null) : undefined;
      },
    });
    const fields: Record<string, unknown> = { id: entry.spec.id };
    let result: HandlerResult | void = undefined;
    if (this.kind === 'StatusNotice') {
      const derived = noticeStatus(entry as StatusNoticeObject, this.ctx.now());
      Object.assign(fields, derived.status);
      if (derived.requeueAfterMs !== undefined) result = { requeueAfterMs: derived.requeueAfterMs };
    }
    fields.announced = this.announced(entry, page);
    await this.ctx.status.write(
      this.kind,
      entry,
      { writer: 'status-page', fields, conditions: [ready], observed: true },
      problemEvents,
    );
    return result;
  }

  /**
   * What subscriber webhooks are told of the entry; kept only while the page has webhooks
   * (undefined leaves the record as it is: a page without webhooks costs no writes).
   */
  private announced(
    entry: Cached<PageEntryObject>,
    page: StatusPageObject | undefined,
  ): Announced | undefined {
    const current = this.ctx.status.current(entry)?.announced;
    if (!page?.spec.webhooks?.length) return undefined;
    const version =
      this.kind === 'StatusComponent'
        ? componentVersion(this.shownState(entry as StatusComponentObject))
        : noticeVersion(entry as StatusNoticeObject, this.ctx.now());
    const created = entry.metadata.creationTimestamp ?? this.ctx.now().toISOString();
    return nextAnnounced(current, version, created, this.ctx.now());
  }

  /** What the component shows: for a group, the worst of its parts (watches.ts looks at groups again). */
  private shownState(component: StatusComponentObject): ComponentState {
    return shownStateOf(component, this.ctx.informers.statusComponents.list(component.metadata.namespace));
  }

  private async assignId(entry: Cached<PageEntryObject>, page: StatusPageObject | undefined): Promise<void> {
    const { namespace, name } = entry.metadata;
    if (!page) {
      // No Event: without a page, every component and notice of the namespace waits at once.
      await this.ctx.status.write(
        this.kind,
        entry,
        { writer: 'status-page', conditions: [NO_STATUS_PAGE] },
        () => [],
      );
      return;
    }
    const inUse = this.cache.list(namespace).flatMap((o) => (o.spec.id === undefined ? [] : [o.spec.id]));
    const id = await this.ids.raise(this.kind, namespace, page.metadata.name, (mark) => nextId(mark, inUse));
    await this.ctx.slipway.patch(this.kind, namespace, name, { spec: { id } });
    const target = { apiVersion: API_VERSION, kind: this.kind, metadata: entry.metadata };
    await this.ctx.events.normal(target, 'IdAssigned', `assigned id ${id}`);
    this.ctx.log.info({ kind: this.kind, object: `${namespace}/${name}`, id }, 'assigned status id');
  }
}

export class StatusPageReconciler implements Reconciler {
  private readonly ctx: StatusPageContext;

  constructor(ctx: StatusPageContext) {
    this.ctx = ctx;
  }

  async reconcile(namespace: string, name: string): Promise<void> {
    const pages = this.ctx.informers.statusPages;
    const page = pages.get(namespace, name);
    if (!page || page.metadata.deletionTimestamp) return;
    const ready = decidePage(page, pages.list(namespace));
    await this.ctx.status.write(
      'StatusPage',
      page,
      {
        writer: 'status-page',
        conditions: [ready],
        observed: true,
      },
      problemEvents,
    );
  }
}
