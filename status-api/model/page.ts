// The page: its identity, and its state derived from the notices (spec section 3.1).
import type { ComponentState, StatusPageObject } from '../../crds/index.ts';
import type { NoticeType, NoticeState } from '../../crds/index.ts';
import type { TimelineState } from '../../crds/notice-timeline.ts';
import { createdAt, updatedAt } from '../../crds/timestamps.ts';

export type PageState = ComponentState;

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

/** What page state needs of a notice at the request's moment. */
export interface NoticeCondition {
  type: NoticeType;
  state: NoticeState | undefined;
  timelineState: TimelineState;
}

/**
 * degraded: a present incident still investigating or identified (recovering ones no longer
 * count). under-maintenance: a present maintenance underway. degraded wins when both hold.
 */
export function pageState(notices: Iterable<NoticeCondition>): PageState {
  let maintenance = false;
  for (const notice of notices) {
    if (notice.timelineState !== 'present') continue;
    if (notice.type === 'unplanned' && (notice.state === 'investigating' || notice.state === 'identified')) {
      return 'degraded';
    }
    if (notice.type === 'planned' && notice.state === 'underway') maintenance = true;
  }
  return maintenance ? 'under-maintenance' : 'operational';
}

export const pageStateTexts: Record<PageState, string> = {
  operational: 'All systems operational',
  degraded: 'Some systems are experiencing problems',
  'under-maintenance': 'Maintenance in progress',
};
