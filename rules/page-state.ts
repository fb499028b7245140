// The page's state, derived from its notices at one moment (docs/status-api.md): what the status
// API publishes and the CLI's `status` shows.
import type { ComponentState, NoticeState, NoticeType } from '../crds/index.ts';
import type { TimelineState } from './notice-timeline.ts';

export type PageState = ComponentState;

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
