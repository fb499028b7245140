// One consistent, read-only view of a namespace's status resources, with the indexes the
// endpoints need. Built once per change, shared by every request until the next change.
// Nothing here depends on the clock; see notice.ts for what does.
import type {
  ComponentState,
  NoticeType,
  StatusComponentObject,
  StatusNoticeObject,
  StatusPageObject,
} from '../../crds/index.ts';
import { shownStates } from '../../rules/group-state.ts';
import { compareComponents, componentFromObject, type Component } from './component.ts';
import { noticeFromObject, noticeTimeBoundaries, type Notice } from '../../rules/notice-timeline.ts';
import { pageFromObject, type Page } from './page.ts';

export interface ComponentEntry extends Component {
  /** The parent's id; null for top-level components and when the parent is not shown. */
  parentId: number | null;
  childCount: number;
  /**
   * What the page and /api/v2 show: the worst state of the component and everything inside it
   * (Statuspage shows a group as its worst part); /api/v1 keeps the stored `state`.
   */
  shownState: ComponentState;
}

export interface StatusSnapshot {
  /** Changes whenever the content does. */
  version: number;
  page: Page | null;
  /** By position, then id. */
  components: readonly ComponentEntry[];
  topLevelComponents: readonly ComponentEntry[];
  nestedComponents: readonly ComponentEntry[];
  componentById: ReadonlyMap<number, ComponentEntry>;
  childrenByParentId: ReadonlyMap<number, readonly ComponentEntry[]>;
  /** Newest first: the latest start (see Notice.startsAt) first, then the higher id. */
  notices: readonly Notice[];
  noticeById: ReadonlyMap<number, Notice>;
  noticesByType: ReadonlyMap<NoticeType, readonly Notice[]>;
  /** The components each notice impacts, by notice id, in component order. */
  impactedComponents: ReadonlyMap<number, readonly ComponentEntry[]>;
  /** The notices that impact each component, by component id (newest first). */
  noticesByComponentId: ReadonlyMap<number, readonly Notice[]>;
  /** The latest creation or spec change of anything on the page. */
  changedAt: number;
  /** Sorted instants at which some notice's clock-dependent fields change (see timeSlice). */
  timeBoundaries: readonly number[];
}

/**
 * The stretch of time around `nowMs` in which no clock-dependent answer changes: an answer
 * computed for one instant in it holds for all of it (until the snapshot itself changes).
 */
export function timeSlice(snapshot: StatusSnapshot, nowMs: number): { from: number; until: number } {
  const b = snapshot.timeBoundaries;
  let low = 0;
  let high = b.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (b[mid]! <= nowMs) low = mid + 1;
    else high = mid;
  }
  return { from: low > 0 ? b[low - 1]! : -Infinity, until: low < b.length ? b[low]! : Infinity };
}

export interface StatusObjects {
  pages: Iterable<StatusPageObject>;
  components: Iterable<StatusComponentObject>;
  notices: Iterable<StatusNoticeObject>;
}

interface Identified {
  id: number;
  objectName: string;
  createdAt: number;
}

/** Code-point order, the same on every replica whatever its locale. */
const byObjectName = (a: { objectName: string }, b: { objectName: string }): number =>
  a.objectName < b.objectName ? -1 : a.objectName > b.objectName ? 1 : 0;

/** Ids are unique by contract; should two objects still share one, the older object keeps it. */
function firstPerId<T extends Identified>(items: T[]): T[] {
  const seen = new Set<number>();
  return items
    .sort((a, b) => a.createdAt - b.createdAt || byObjectName(a, b))
    .filter((item) => !seen.has(item.id) && seen.add(item.id));
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function buildSnapshot(objects: StatusObjects, version = 0): StatusSnapshot {
  // One namespace holds one page; with several, the oldest one is the page.
  const page =
    [...objects.pages]
      .map(pageFromObject)
      .filter((p): p is Page => p !== null)
      .sort((a, b) => a.createdAt - b.createdAt || byObjectName(a, b))[0] ?? null;

  const bare = firstPerId(
    [...objects.components].map(componentFromObject).filter((c): c is Component => c !== null),
  );
  const idByName = new Map(bare.map((c) => [c.objectName, c.id]));
  const components: ComponentEntry[] = bare
    .map((c) => {
      const parentId = c.parentName === null ? null : (idByName.get(c.parentName) ?? null);
      return { ...c, parentId: parentId === c.id ? null : parentId, childCount: 0, shownState: c.state };
    })
    .sort(compareComponents);
  const componentById = new Map(components.map((c) => [c.id, c]));
  const componentByName = new Map(components.map((c) => [c.objectName, c]));
  const childrenByParentId = new Map<number, ComponentEntry[]>();
  for (const c of components) if (c.parentId !== null) pushTo(childrenByParentId, c.parentId, c);
  for (const [parentId, children] of childrenByParentId) {
    const parent = componentById.get(parentId);
    if (parent) parent.childCount = children.length;
  }
  const shown = shownStates(components.map((c) => ({ key: c.id, parent: c.parentId, state: c.state })));
  for (const c of components) c.shownState = shown.get(c.id) ?? c.state;

  const notices = firstPerId(
    [...objects.notices].map(noticeFromObject).filter((n): n is Notice => n !== null),
  ).sort((a, b) => b.startsAt - a.startsAt || b.id - a.id);
  const noticesByType = new Map<NoticeType, Notice[]>([
    ['general', []],
    ['planned', []],
    ['unplanned', []],
  ]);
  const impactedComponents = new Map<number, ComponentEntry[]>();
  const noticesByComponentId = new Map<number, Notice[]>();
  for (const n of notices) {
    pushTo(noticesByType, n.type, n);
    const impacted = new Set<ComponentEntry>();
    for (const name of n.componentNames) {
      const c = componentByName.get(name);
      if (c) impacted.add(c);
    }
    impactedComponents.set(n.id, [...impacted].sort(compareComponents));
    for (const c of impacted) pushTo(noticesByComponentId, c.id, n);
  }

  let changedAt = page?.updatedAt ?? 0;
  for (const c of components) changedAt = Math.max(changedAt, c.updatedAt);
  for (const n of notices) changedAt = Math.max(changedAt, n.changedAt);
  const timeBoundaries = [...new Set(notices.flatMap(noticeTimeBoundaries))].sort((a, b) => a - b);

  return {
    version,
    page,
    components,
    topLevelComponents: components.filter((c) => c.parentId === null),
    nestedComponents: components.filter((c) => c.parentId !== null),
    componentById,
    childrenByParentId,
    notices,
    noticeById: new Map(notices.map((n) => [n.id, n])),
    noticesByType,
    timeBoundaries,
    impactedComponents,
    noticesByComponentId,
    changedAt,
  };
}
