// The status resources of ONE namespace, held in memory and fed by watchers (informers).
// Reads go through snapshot(): an immutable view with its indexes, rebuilt lazily on the first
// read after a change, so a burst of watch events costs one rebuild and requests never rebuild.
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../crds/index.ts';
import { buildSnapshot, type StatusSnapshot } from './model/snapshot.ts';

export const statusKinds = ['StatusPage', 'StatusComponent', 'StatusNotice'] as const;
export type StatusKind = (typeof statusKinds)[number];

interface Named {
  metadata: { name: string; resourceVersion?: string };
}

export class StatusStore {
  #pages = new Map<string, StatusPageObject>();
  #components = new Map<string, StatusComponentObject>();
  #notices = new Map<string, StatusNoticeObject>();
  #synced = new Set<StatusKind>();
  #version = 0;
  #snapshot: StatusSnapshot | null = null;

  /** True once every kind has finished its initial list (and from then on); the API answers 503 until then. */
  get synced(): boolean {
    return this.#synced.size === statusKinds.length;
  }

  /** Call when a kind's watcher has delivered its initial list. */
  markSynced(kind: StatusKind): void {
    this.#synced.add(kind);
  }

  upsertPage(obj: StatusPageObject): void {
    this.#upsert(this.#pages, obj);
  }

  deletePage(name: string): void {
    this.#delete(this.#pages, name);
  }

  upsertComponent(obj: StatusComponentObject): void {
    this.#upsert(this.#components, obj);
  }

  deleteComponent(name: string): void {
    this.#delete(this.#components, name);
  }

  upsertNotice(obj: StatusNoticeObject): void {
    this.#upsert(this.#notices, obj);
  }

  deleteNotice(name: string): void {
    this.#delete(this.#notices, name);
  }

  /** The current view. The same object is returned until something changes. */
  snapshot(): StatusSnapshot {
    this.#snapshot ??= buildSnapshot(
      { pages: this.#pages.values(), components: this.#components.values(), notices: this.#notices.values() },
      this.#version,
    );
    return this.#snapshot;
  }

  #upsert<T extends Named>(map: Map<string, T>, obj: T): void {
    const { name, resourceVersion } = obj.metadata;
    // A periodic resync redelivers unchanged objects; resourceVersion is opaque, so only equality counts.
    if (resourceVersion !== undefined && map.get(name)?.metadata.resourceVersion === resourceVersion) return;
    map.set(name, obj);
    this.#changed();
  }

  #delete<T>(map: Map<string, T>, name: string): void {
    if (map.delete(name)) this.#changed();
  }

  #changed(): void {
    this.#version += 1;
    this.#snapshot = null;
  }
}
