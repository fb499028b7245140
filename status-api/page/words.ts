// The words the page uses for states and kinds of notice: every state is said in text, with a
// glyph beside it that is only decoration (colour and glyph never carry meaning alone).
import type { ComponentState, NoticeState, NoticeType } from '../../crds/index.ts';

export const componentStateText: Record<ComponentState, string> = {
  operational: 'Operational',
  degraded: 'Degraded',
  'under-maintenance': 'Under maintenance',
};

export const stateGlyph: Record<ComponentState, string> = {
  operational: '✓',
  degraded: '!',
  'under-maintenance': '⚙',
};

export const noticeStateText: Record<NoticeState, string> = {
  investigating: 'Investigating',
  identified: 'Identified',
  recovering: 'Recovering',
  resolved: 'Resolved',
  false_alarm: 'False alarm',
  scheduled: 'Scheduled',
  underway: 'Underway',
  complete: 'Complete',
  cancelled: 'Cancelled',
};

export const noticeTypeText: Record<NoticeType, string> = {
  unplanned: 'Incident',
  planned: 'Maintenance',
  general: 'Announcement',
};
