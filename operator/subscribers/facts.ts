// What a payload says of a namespace's page, components and notices, read from the operator's
// caches as the status API reads its snapshot: the page's state from its notices at `now`, a
// component's Statuspage shape (its place among the page's components as /api/v2's position,
// and for a group the worst state of its parts, as /api/v2 shows it),
// an incident with the components it affects.
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../../crds/index.ts';
import type { Cached, Informer } from '../../lib/informer.ts';
import { noticeAt, noticeFromObject, noticeUrl } from '../../rules/notice-timeline.ts';
import { shownStateOf } from '../../rules/group-state.ts';
import { pageState } from '../../rules/page-state.ts';
import {
  componentCore,
  incidentCore,
  incidentStatus,
  type ComponentCore,
  type IncidentCore,
} from '../../rules/statuspage.ts';
import { createdAt, updatedAt } from '../../rules/timestamps.ts';
import type { PageFacts } from './payloads.ts';

export interface StatusCaches {
  statusComponents: Informer<Cached<StatusComponentObject>>;
  statusNotices: Informer<Cached<StatusNoticeObject>>;
}

const idOf = (o: { spec: { id?: number } }) => o.spec.id ?? 0;

export function pageFacts(caches: StatusCaches, page: StatusPageObject, now: Date): PageFacts {
  const conditions = caches.statusNotices.list(page.metadata.namespace).flatMap((object) => {
    const notice = noticeFromObject(object);
    if (!notice) return [];
    const at = noticeAt(notice, now);
    return [{ type: notice.type, state: at.state, timelineState: at.timelineState }];
  });
  return { id: page.metadata.name, state: pageState(conditions), url: page.spec.url };
}

/** The component as Statuspage shows it; undefined while it has no id. */
export function componentFacts(
  caches: StatusCaches,
  component: StatusComponentObject,
  pageId: string,
): ComponentCore | undefined {
  const { namespace } = component.metadata;
  if (component.spec.id === undefined) return undefined;
  const all = caches.statusComponents.list(namespace).filter((c) => c.spec.id !== undefined);
  const place = (c: StatusComponentObject) => c.spec.position ?? Number.MAX_SAFE_INTEGER;
  const position =
    all.filter(
      (c) => place(c) < place(component) || (place(c) === place(component) && idOf(c) < idOf(component)),
    ).length + 1;
  const parentName = component.spec.parentRef?.name;
  const parent = parentName ? caches.statusComponents.get(namespace, parentName) : undefined;
  return componentCore(
    {
      id: component.spec.id,
      name: component.spec.name,
      description: component.spec.description ?? '',
      // A group shows the worst of its parts, as /api/v2 shows it.
      state: shownStateOf(component, all),
      parentId: parent?.spec.id ?? null,
      createdAt: createdAt(component.metadata),
      updatedAt: updatedAt(component.metadata),
    },
    pageId,
    position,
  );
}

/**
 * Whether a webhook limited to `components` (public ids; a group stands for its parts) wants
 * the object's changes: a component of those, or a notice that affects one of them or no
 * component at all. Without a limit, everything.
 */
export function wants(
  caches: StatusCaches,
  components: readonly number[] | undefined,
  kind: 'StatusComponent' | 'StatusNotice',
  object: StatusComponentObject | StatusNoticeObject,
): boolean {
  if (!components) return true;
  const wanted = new Set(components);
  const { namespace } = object.metadata;
  const covers = (c: StatusComponentObject | undefined): boolean => {
    if (!c) return false;
    if (c.spec.id !== undefined && wanted.has(c.spec.id)) return true;
    const parent = c.spec.parentRef?.name;
    const parentId = parent ? caches.statusComponents.get(namespace, parent)?.spec.id : undefined;
    return parentId !== undefined && wanted.has(parentId);
  };
  if (kind === 'StatusComponent') return covers(object as StatusComponentObject);
  const refs = (object as StatusNoticeObject).spec.componentRefs ?? [];
  // A notice about no component in particular concerns every subscriber.
  return refs.length === 0 || refs.some((ref) => covers(caches.statusComponents.get(namespace, ref.name)));
}

/** The incident or maintenance as Statuspage shows it at `now`; undefined while it has no id. */
export function incidentFacts(
  caches: StatusCaches,
  object: StatusNoticeObject,
  page: StatusPageObject,
  now: Date,
): (IncidentCore & { components: ComponentCore[] }) | undefined {
  const notice = noticeFromObject(object);
  if (!notice) return undefined;
  const at = noticeAt(notice, now);
  const pageId = page.metadata.name;
  const components = (object.spec.componentRefs ?? []).flatMap((ref) => {
    const c = caches.statusComponents.get(object.metadata.namespace, ref.name);
    const core = c && componentFacts(caches, c, pageId);
    return core ? [core] : [];
  });
  return {
    ...incidentCore(notice, at, incidentStatus(notice, at), {
      shortlink: noticeUrl(page.spec.url, notice.id),
      pageId,
    }),
    components,
  };
}

/** A page's state is computed over all its notices: once per this long, not per delivery. */
const PAGE_FACTS_FOR_MS = 1000;

/** pageFacts, kept per namespace for a second: a burst of deliveries reads the notices once. */
export class PageFactsMemo {
  readonly #caches: StatusCaches;
  readonly #memo = new Map<string, { at: number; facts: PageFacts }>();

  constructor(caches: StatusCaches) {
    this.#caches = caches;
  }

  of(page: StatusPageObject, now: Date): PageFacts {
    const memo = this.#memo.get(page.metadata.namespace);
    if (memo && now.getTime() - memo.at < PAGE_FACTS_FOR_MS && memo.facts.id === page.metadata.name)
      return memo.facts;
    const facts = pageFacts(this.#caches, page, now);
    this.#memo.set(page.metadata.namespace, { at: now.getTime(), facts });
    return facts;
  }
}
