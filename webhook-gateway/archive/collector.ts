// Deletes stored archives no Bundle refers to any more: bundles pruned by their project's
// history limit, deleted by hand, or gone with their namespace. An archive is collected only
// when the gateway's bundle cache is synced (an empty cache would make everything look unused),
// only when it is older than a grace period (an upload is stored a moment before its bundle is
// created), and only if it is still unreferenced right before it is deleted.
import type { ArchiveStore } from './store.ts';

/** How old the view of referenced archives may be when one is deleted. */
const RECHECK_MS = 1_000;

export interface CollectorOptions {
  store: ArchiveStore;
  /** The archive keys Bundles refer to now; undefined while the bundle cache is not synced. */
  referencedKeys: () => ReadonlySet<string> | undefined;
  /** Only keys under `<namespace>/` (the gateway watches one namespace). */
  namespace?: string;
  /** Archives stored less than this long ago are kept. */
  graceMs: number;
  now: () => Date;
}

export interface Collection {
  /** Keys deleted. */
  removed: string[];
  /** Archives looked at. */
  seen: number;
  /** False when the cache was not synced: nothing was looked at. */
  ran: boolean;
}

export async function collectOrphanArchives(options: CollectorOptions): Promise<Collection> {
  const { store, referencedKeys, graceMs } = options;
  const removed: string[] = [];
  let seen = 0;
  const before = referencedKeys();
  if (!before) return { removed, seen, ran: false };
  const candidates: string[] = [];
  for await (const { key, modifiedAt } of store.list(options.namespace)) {
    seen += 1;
    if (options.now().getTime() - modifiedAt.getTime() >= graceMs && !before.has(key)) candidates.push(key);
  }
  // Looked at again right before each deletion (at most a second old): a bundle made meanwhile
  // keeps its archive, however long the list of candidates takes.
  let current: ReadonlySet<string> | undefined;
  let readAt = 0;
  for (const key of candidates) {
    if (!current || Date.now() - readAt > RECHECK_MS) {
      current = referencedKeys();
      readAt = Date.now();
      if (!current) return { removed, seen, ran: false };
    }
    if (current.has(key)) continue;
    await store.remove(key);
    removed.push(key);
  }
  return { removed, seen, ran: true };
}
