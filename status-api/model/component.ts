// A component as the API sees it.
import type { ComponentState, StatusComponentObject } from '../../crds/index.ts';
import { createdAt, updatedAt } from '../../rules/timestamps.ts';

export interface Component {
  id: number;
  /** metadata.name: what parentRef and componentRefs point at. */
  objectName: string;
  name: string;
  description: string;
  state: ComponentState;
  parentName: string | null;
  /** Lower comes first; components without one come after those with one. */
  position: number;
  createdAt: number;
  updatedAt: number;
}

/** The component the API shows for a resource; null while it has no id or is being deleted. */
export function componentFromObject(obj: StatusComponentObject): Component | null {
  const id = obj.status?.id ?? obj.spec.id;
  if (id === undefined || obj.metadata.deletionTimestamp !== undefined) return null;
  return {
    id,
    objectName: obj.metadata.name,
    name: obj.spec.name,
    description: obj.spec.description ?? '',
    state: obj.spec.state ?? 'operational',
    parentName: obj.spec.parentRef?.name ?? null,
    position: obj.spec.position ?? Number.MAX_SAFE_INTEGER,
    createdAt: createdAt(obj.metadata),
    updatedAt: updatedAt(obj.metadata),
  };
}

/** Components by position, then id. */
export function compareComponents(a: Component, b: Component): number {
  return a.position - b.position || a.id - b.id;
}
