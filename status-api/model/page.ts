// The page: its identity (its state, derived from the notices, is rules/page-state.ts).
import type { StatusPageObject } from '../../crds/index.ts';
import { createdAt, updatedAt } from '../../rules/timestamps.ts';

export interface Page {
  /** metadata.name */
  objectName: string;
  name: string;
  url: string;
  createdAt: number;
  updatedAt: number;
}

export function pageFromObject(obj: StatusPageObject): Page | null {
  if (obj.metadata.deletionTimestamp !== undefined) return null;
  return {
    objectName: obj.metadata.name,
    name: obj.spec.name,
    url: obj.spec.url,
    createdAt: createdAt(obj.metadata),
    updatedAt: updatedAt(obj.metadata),
  };
}
