// Small builders for status resources, shaped as the API server stores them.
import type {
  ComponentState,
  NoticeState,
  NoticeType,
  StatusComponentObject,
  StatusNoticeObject,
  StatusPageObject,
} from '../../../crds/index.ts';
import { buildSnapshot, type StatusSnapshot } from '../../../status-api/model/snapshot.ts';
import { StatusStore } from '../../../status-api/store.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** The moment every test looks from, unless it says otherwise. */
export const NOW = new Date('2026-03-10T12:00:00.000Z');

/** NOW shifted by `offsetMs`, as a resource would write it. */
export const iso = (offsetMs: number): string => new Date(NOW.getTime() + offsetMs).toISOString();
export const shifted = (offsetMs: number): Date => new Date(NOW.getTime() + offsetMs);

const NAMESPACE = 'status';
const CREATED = iso(-30 * DAY);

export function pageObject(spec: Partial<StatusPageObject['spec']> = {}, name = 'acme'): StatusPageObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'StatusPage',
    metadata: { name, namespace: NAMESPACE, creationTimestamp: CREATED },
    spec: { name: 'Acme Cloud', url: 'https://status.acme.test', ...spec },
  };
}

export interface ComponentOptions {
  id?: number;
  statusId?: number;
  parent?: string;
  position?: number;
  state?: ComponentState;
  description?: string;
  displayName?: string;
  created?: string;
  deleting?: boolean;
}

export function componentObject(name: string, options: ComponentOptions = {}): StatusComponentObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'StatusComponent',
    metadata: {
      name,
      namespace: NAMESPACE,
      creationTimestamp: options.created ?? CREATED,
      ...(options.deleting ? { deletionTimestamp: iso(-HOUR) } : {}),
    },
    spec: {
      name: options.displayName ?? name.toUpperCase(),
      description: options.description ?? `The ${name}`,
      state: options.state ?? 'operational',
      ...(options.parent !== undefined ? { parentRef: { name: options.parent } } : {}),
      ...(options.position !== undefined ? { position: options.position } : {}),
      ...(options.id !== undefined ? { id: options.id } : {}),
    },
    ...(options.statusId !== undefined ? { status: { id: options.statusId } } : {}),
  };
}

export interface UpdateInput {
  state?: NoticeState;
  content?: string;
  at: string;
}

export interface NoticeOptions {
  id?: number;
  statusId?: number;
  subject?: string;
  beginsAt?: string;
  endsAt?: string;
  updates?: UpdateInput[];
  components?: string[];
  tags?: string[];
  created?: string;
  deleting?: boolean;
}

export function noticeObject(
  name: string,
  type: NoticeType,
  options: NoticeOptions = {},
): StatusNoticeObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'StatusNotice',
    metadata: {
      name,
      namespace: NAMESPACE,
      creationTimestamp: options.created ?? iso(-2 * DAY),
      ...(options.deleting ? { deletionTimestamp: iso(-HOUR) } : {}),
    },
    spec: {
      type,
      subject: options.subject ?? `Notice ${name}`,
      ...(options.beginsAt !== undefined ? { beginsAt: options.beginsAt } : {}),
      ...(options.endsAt !== undefined ? { endsAt: options.endsAt } : {}),
      componentRefs: (options.components ?? []).map((ref) => ({ name: ref })),
      tags: options.tags ?? [],
      updates: (options.updates ?? []).map((u) => ({ content: u.content ?? `update at ${u.at}`, ...u })),
      ...(options.id !== undefined ? { id: options.id } : {}),
    },
    ...(options.statusId !== undefined ? { status: { id: options.statusId } } : {}),
  };
}

export interface Objects {
  pages?: StatusPageObject[];
  components?: StatusComponentObject[];
  notices?: StatusNoticeObject[];
}

export function snapshotOf(objects: Objects): StatusSnapshot {
  return buildSnapshot({
    pages: objects.pages ?? [pageObject()],
    components: objects.components ?? [],
    notices: objects.notices ?? [],
  });
}

/** A synced store holding the objects. */
export function storeOf(objects: Objects): StatusStore {
  const store = new StatusStore();
  for (const page of objects.pages ?? [pageObject()]) store.upsertPage(page);
  for (const component of objects.components ?? []) store.upsertComponent(component);
  for (const notice of objects.notices ?? []) store.upsertNotice(notice);
  store.markSynced('StatusPage');
  store.markSynced('StatusComponent');
  store.markSynced('StatusNotice');
  return store;
}
