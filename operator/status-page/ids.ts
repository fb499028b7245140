// Stable integer ids for status components and notices (docs/resources.md): set once in spec.id, never
// changed (a CEL rule guards it), never reused in the page. "Never reused" needs a memory of
// ids whose objects are gone: a high-water mark in an annotation of the StatusPage, which a
// backup/restore of the objects carries along (status would not survive it).

export const LAST_ID_ANNOTATION = {
  StatusComponent: 'slipway.dev/last-component-id',
  StatusNotice: 'slipway.dev/last-notice-id',
} as const;

/** The next free id: above both the recorded high-water mark and every id in use. */
export function nextId(highWater: string | undefined, inUse: Iterable<number>): number {
  let max = Number.parseInt(highWater ?? '0', 10);
  if (!Number.isSafeInteger(max) || max < 0) max = 0;
  for (const id of inUse) if (id > max) max = id;
  return max + 1;
}

export interface Named {
  metadata: { name: string; creationTimestamp?: string };
  spec: { id?: number };
}

/** The object that holds `id` first (oldest, then by name), if it is not `self`. */
export function earlierHolder<T extends Named>(self: T, all: Iterable<T>): T | undefined {
  const id = self.spec.id;
  if (id === undefined) return undefined;
  let first: T | undefined;
  for (const other of all) {
    if (other.spec.id !== id) continue;
    if (!first || olderThan(other, first)) first = other;
  }
  return first && first.metadata.name !== self.metadata.name ? first : undefined;
}

function olderThan(a: Named, b: Named): boolean {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  return ta !== tb ? ta < tb : a.metadata.name < b.metadata.name;
}

export type ParentProblem = { reason: 'ParentNotFound' | 'ParentCycle'; message: string } | undefined;

/**
 * Walks parentRefs up from `name`. `parentOf` gives a component's parentRef name, null for a
 * top-level one, and undefined for one that does not exist.
 */
export function parentProblem(
  name: string,
  parentOf: (name: string) => string | null | undefined,
): ParentProblem {
  const seen = new Set([name]);
  let current = name;
  for (;;) {
    const parent = parentOf(current);
    if (parent === null || parent === undefined) return undefined;
    if (seen.has(parent)) return { reason: 'ParentCycle', message: `parentRef loops back through ${parent}` };
    if (parentOf(parent) === undefined) {
      return { reason: 'ParentNotFound', message: `parent component ${parent} does not exist` };
    }
    seen.add(parent);
    current = parent;
  }
}
