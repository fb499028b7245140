// Page state (spec 3.1): which notices make the page degraded or under maintenance.
import { describe, expect, it } from '@jest/globals';
import type { NoticeType, NoticeState } from '../../../crds/index.ts';
import {
  pageState,
  pageStateTexts,
  type NoticeCondition,
  type PageState,
} from '../../../rules/page-state.ts';
import type { TimelineState } from '../../../rules/notice-timeline.ts';
import { serializePage } from '../../../status-api/model/serialize.ts';
import { HOUR, NOW, iso, noticeObject, snapshotOf } from './builders.ts';

const c = (
  type: NoticeType,
  state: NoticeState | undefined,
  timelineState: TimelineState,
): NoticeCondition => ({
  type,
  state,
  timelineState,
});

describe('pageState', () => {
  const rows: Array<[string, NoticeCondition[], PageState]> = [
    ['no notices', [], 'operational'],
    ['a present incident investigating', [c('unplanned', 'investigating', 'present')], 'degraded'],
    ['a present incident identified', [c('unplanned', 'identified', 'present')], 'degraded'],
    ['a recovering incident is not current', [c('unplanned', 'recovering', 'present')], 'operational'],
    ['a resolved incident', [c('unplanned', 'resolved', 'past_recent')], 'operational'],
    ['a false alarm', [c('unplanned', 'false_alarm', 'past_recent')], 'operational'],
    ['an incident that has not begun', [c('unplanned', 'investigating', 'future')], 'operational'],
    [
      'an investigating incident that is no longer present',
      [c('unplanned', 'investigating', 'past_distant')],
      'operational',
    ],
    ['a maintenance underway', [c('planned', 'underway', 'present')], 'under-maintenance'],
    ['a maintenance window open but not started', [c('planned', 'scheduled', 'present')], 'operational'],
    ['a scheduled maintenance ahead', [c('planned', 'scheduled', 'future')], 'operational'],
    ['a completed maintenance', [c('planned', 'complete', 'past_recent')], 'operational'],
    ['a cancelled maintenance', [c('planned', 'cancelled', 'past_recent')], 'operational'],
    ['a general notice', [c('general', undefined, 'present')], 'operational'],
    [
      'incident and maintenance: degraded wins',
      [c('planned', 'underway', 'present'), c('unplanned', 'identified', 'present')],
      'degraded',
    ],
    [
      'incident listed before maintenance: still degraded',
      [c('unplanned', 'investigating', 'present'), c('planned', 'underway', 'present')],
      'degraded',
    ],
    [
      'recovering incident and maintenance: under maintenance',
      [c('unplanned', 'recovering', 'present'), c('planned', 'underway', 'present')],
      'under-maintenance',
    ],
  ];
  it.each(rows)('%s → %s', (_name, notices, expected) => {
    expect(pageState(notices)).toBe(expected);
  });
});

describe('page state from resources at the request clock', () => {
  const incident = (state: NoticeState) =>
    noticeObject('incident', 'unplanned', {
      id: 1,
      updates: [
        { state: 'investigating', at: iso(-2 * HOUR) },
        { state, at: iso(-HOUR) },
      ],
    });
  const maintenance = noticeObject('maintenance', 'planned', {
    id: 2,
    beginsAt: iso(-HOUR),
    endsAt: iso(HOUR),
    updates: [{ state: 'underway', at: iso(-HOUR) }],
  });

  it.each([
    [[], 'operational', 'All systems operational'],
    [[incident('identified')], 'degraded', 'Some systems are experiencing problems'],
    [[incident('recovering')], 'operational', 'All systems operational'],
    [[maintenance], 'under-maintenance', 'Maintenance in progress'],
    [[incident('identified'), maintenance], 'degraded', 'Some systems are experiencing problems'],
    [[incident('recovering'), maintenance], 'under-maintenance', 'Maintenance in progress'],
    [[incident('resolved'), maintenance], 'under-maintenance', 'Maintenance in progress'],
  ])('%# → %s', (notices, state, text) => {
    const page = serializePage(snapshotOf({ notices }), NOW);
    expect(page?.state).toBe(state);
    expect(page?.state_text).toBe(text);
    expect(pageStateTexts[state as keyof typeof pageStateTexts]).toBe(text);
  });

  it('changes with the clock alone when a maintenance window opens', () => {
    const upcoming = noticeObject('upcoming', 'planned', {
      id: 3,
      beginsAt: iso(HOUR),
      endsAt: iso(2 * HOUR),
      updates: [{ state: 'underway', at: iso(HOUR) }],
    });
    const snapshot = snapshotOf({ notices: [upcoming] });
    expect(serializePage(snapshot, NOW)?.state).toBe('operational');
    expect(serializePage(snapshot, new Date(NOW.getTime() + HOUR))?.state).toBe('under-maintenance');
  });
});
