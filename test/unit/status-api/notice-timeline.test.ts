// Every notice type × state × timeline position, seen from one fixed moment (NOW).
import { describe, expect, it } from '@jest/globals';
import type { NoticeState, NoticeType } from '../../../crds/index.ts';
import {
  noticeAt,
  noticeFromObject,
  noticeState,
  timelineState,
  type Notice,
  type TimelineState,
} from '../../../rules/notice-timeline.ts';
import { DAY, HOUR, NOW, iso, noticeObject, shifted, type NoticeOptions } from './builders.ts';

function notice(type: NoticeType, options: NoticeOptions): Notice {
  const built = noticeFromObject(noticeObject('n', type, { id: 1, ...options }));
  if (built === null) throw new Error('notice has no id');
  return built;
}

interface Row {
  name: string;
  type: NoticeType;
  options: NoticeOptions;
  state: NoticeState | undefined;
  timeline: TimelineState;
  beganAt: string | null;
  endedAt: string | null;
}

const RECENT_LIMIT = 168 * HOUR;

const unplanned: Row[] = [
  {
    name: 'no update yet: investigating since creation',
    type: 'unplanned',
    options: { created: iso(-HOUR) },
    state: 'investigating',
    timeline: 'present',
    beganAt: iso(-HOUR),
    endedAt: null,
  },
  {
    name: 'first update still ahead: future',
    type: 'unplanned',
    options: { created: iso(-HOUR), updates: [{ state: 'identified', at: iso(HOUR) }] },
    state: 'investigating',
    timeline: 'future',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'investigating',
    type: 'unplanned',
    options: { updates: [{ state: 'investigating', at: iso(-2 * HOUR) }] },
    state: 'investigating',
    timeline: 'present',
    beganAt: iso(-2 * HOUR),
    endedAt: null,
  },
  {
    name: 'identified',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-2 * HOUR) },
        { state: 'identified', at: iso(-HOUR) },
      ],
    },
    state: 'identified',
    timeline: 'present',
    beganAt: iso(-2 * HOUR),
    endedAt: null,
  },
  {
    name: 'recovering',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-2 * HOUR) },
        { state: 'recovering', at: iso(-HOUR) },
      ],
    },
    state: 'recovering',
    timeline: 'present',
    beganAt: iso(-2 * HOUR),
    endedAt: null,
  },
  {
    name: 'an incident nobody resolved stays present, however old',
    type: 'unplanned',
    options: { updates: [{ state: 'identified', at: iso(-40 * DAY) }] },
    state: 'identified',
    timeline: 'present',
    beganAt: iso(-40 * DAY),
    endedAt: null,
  },
  {
    name: 'resolved an hour ago',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-3 * HOUR) },
        { state: 'resolved', at: iso(-HOUR) },
      ],
    },
    state: 'resolved',
    timeline: 'past_recent',
    beganAt: iso(-3 * HOUR),
    endedAt: iso(-HOUR),
  },
  {
    name: 'false alarm an hour ago',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-3 * HOUR) },
        { state: 'false_alarm', at: iso(-HOUR) },
      ],
    },
    state: 'false_alarm',
    timeline: 'past_recent',
    beganAt: iso(-3 * HOUR),
    endedAt: iso(-HOUR),
  },
  {
    name: 'resolved exactly 168 h ago: still recent',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-RECENT_LIMIT - HOUR) },
        { state: 'resolved', at: iso(-RECENT_LIMIT) },
      ],
    },
    state: 'resolved',
    timeline: 'past_recent',
    beganAt: iso(-RECENT_LIMIT - HOUR),
    endedAt: iso(-RECENT_LIMIT),
  },
  {
    name: 'resolved 168 h and 1 ms ago: distant',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-RECENT_LIMIT - HOUR) },
        { state: 'resolved', at: iso(-RECENT_LIMIT - 1) },
      ],
    },
    state: 'resolved',
    timeline: 'past_distant',
    beganAt: iso(-RECENT_LIMIT - HOUR),
    endedAt: iso(-RECENT_LIMIT - 1),
  },
  {
    name: 'false alarm 10 days ago: distant',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-11 * DAY) },
        { state: 'false_alarm', at: iso(-10 * DAY) },
      ],
    },
    state: 'false_alarm',
    timeline: 'past_distant',
    beganAt: iso(-11 * DAY),
    endedAt: iso(-10 * DAY),
  },
  {
    name: 'reopened after resolution: present again, no end',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-5 * HOUR) },
        { state: 'resolved', at: iso(-4 * HOUR) },
        { state: 'identified', at: iso(-HOUR) },
      ],
    },
    state: 'identified',
    timeline: 'present',
    beganAt: iso(-5 * HOUR),
    endedAt: null,
  },
  {
    name: 'a note without state after resolution keeps it resolved, ended at the resolution',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'investigating', at: iso(-5 * HOUR) },
        { state: 'resolved', at: iso(-4 * HOUR) },
        { content: 'post-mortem published', at: iso(-HOUR) },
      ],
    },
    state: 'resolved',
    timeline: 'past_recent',
    beganAt: iso(-5 * HOUR),
    endedAt: iso(-4 * HOUR),
  },
  {
    name: 'a resolution dated in the future is not in effect yet',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'identified', at: iso(-HOUR) },
        { state: 'resolved', at: iso(HOUR) },
      ],
    },
    state: 'identified',
    timeline: 'present',
    beganAt: iso(-HOUR),
    endedAt: null,
  },
  {
    name: 'updates listed out of order are read by their time',
    type: 'unplanned',
    options: {
      updates: [
        { state: 'resolved', at: iso(-HOUR) },
        { state: 'investigating', at: iso(-3 * HOUR) },
      ],
    },
    state: 'resolved',
    timeline: 'past_recent',
    beganAt: iso(-3 * HOUR),
    endedAt: iso(-HOUR),
  },
];

const window = (startOffset: number, endOffset: number) => ({
  beginsAt: iso(startOffset),
  endsAt: iso(endOffset),
});

const planned: Row[] = [
  {
    name: 'scheduled, window ahead: future',
    type: 'planned',
    options: window(DAY, DAY + 2 * HOUR),
    state: 'scheduled',
    timeline: 'future',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'scheduled explicitly, window ahead: future',
    type: 'planned',
    options: { ...window(DAY, DAY + 2 * HOUR), updates: [{ state: 'scheduled', at: iso(-DAY) }] },
    state: 'scheduled',
    timeline: 'future',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'scheduled, inside its window: present',
    type: 'planned',
    options: window(-HOUR, HOUR),
    state: 'scheduled',
    timeline: 'present',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'scheduled, window passed without updates: past, nothing recorded',
    type: 'planned',
    options: window(-3 * HOUR, -HOUR),
    state: 'scheduled',
    timeline: 'past_recent',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'scheduled, window passed 10 days ago: distant',
    type: 'planned',
    options: window(-10 * DAY - HOUR, -10 * DAY),
    state: 'scheduled',
    timeline: 'past_distant',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'underway inside its window',
    type: 'planned',
    options: { ...window(-HOUR, HOUR), updates: [{ state: 'underway', at: iso(-HOUR) }] },
    state: 'underway',
    timeline: 'present',
    beganAt: iso(-HOUR),
    endedAt: null,
  },
  {
    name: 'underway before its window (started early): present',
    type: 'planned',
    options: { ...window(HOUR, 2 * HOUR), updates: [{ state: 'underway', at: iso(-10 * 60_000) }] },
    state: 'underway',
    timeline: 'present',
    beganAt: iso(-10 * 60_000),
    endedAt: null,
  },
  {
    name: 'underway after its window (overrunning): present',
    type: 'planned',
    options: { ...window(-3 * HOUR, -HOUR), updates: [{ state: 'underway', at: iso(-3 * HOUR) }] },
    state: 'underway',
    timeline: 'present',
    beganAt: iso(-3 * HOUR),
    endedAt: null,
  },
  {
    name: 'complete before the window ends: past from then on',
    type: 'planned',
    options: {
      ...window(-2 * HOUR, 2 * HOUR),
      updates: [
        { state: 'underway', at: iso(-2 * HOUR) },
        { state: 'complete', at: iso(-HOUR) },
      ],
    },
    state: 'complete',
    timeline: 'past_recent',
    beganAt: iso(-2 * HOUR),
    endedAt: iso(-HOUR),
  },
  {
    name: 'complete 10 days ago: distant',
    type: 'planned',
    options: {
      ...window(-10 * DAY - 2 * HOUR, -10 * DAY),
      updates: [
        { state: 'underway', at: iso(-10 * DAY - 2 * HOUR) },
        { state: 'complete', at: iso(-10 * DAY) },
      ],
    },
    state: 'complete',
    timeline: 'past_distant',
    beganAt: iso(-10 * DAY - 2 * HOUR),
    endedAt: iso(-10 * DAY),
  },
  {
    name: 'complete without an underway update: began and ended at once',
    type: 'planned',
    options: { ...window(-2 * HOUR, -HOUR), updates: [{ state: 'complete', at: iso(-HOUR) }] },
    state: 'complete',
    timeline: 'past_recent',
    beganAt: iso(-HOUR),
    endedAt: iso(-HOUR),
  },
  {
    name: 'cancelled before its window: past, never began',
    type: 'planned',
    options: { ...window(DAY, DAY + HOUR), updates: [{ state: 'cancelled', at: iso(-HOUR) }] },
    state: 'cancelled',
    timeline: 'past_recent',
    beganAt: null,
    endedAt: iso(-HOUR),
  },
  {
    name: 'cancelled 10 days ago: distant',
    type: 'planned',
    options: { ...window(-9 * DAY, -9 * DAY + HOUR), updates: [{ state: 'cancelled', at: iso(-10 * DAY) }] },
    state: 'cancelled',
    timeline: 'past_distant',
    beganAt: null,
    endedAt: iso(-10 * DAY),
  },
  {
    name: 'an underway update dated later is not in effect yet',
    type: 'planned',
    options: { ...window(HOUR, 2 * HOUR), updates: [{ state: 'underway', at: iso(HOUR) }] },
    state: 'scheduled',
    timeline: 'future',
    beganAt: null,
    endedAt: null,
  },
];

const general: Row[] = [
  {
    name: 'present from creation, with no end',
    type: 'general',
    options: { created: iso(-400 * DAY) },
    state: undefined,
    timeline: 'present',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'beginsAt ahead: future',
    type: 'general',
    options: { beginsAt: iso(DAY) },
    state: undefined,
    timeline: 'future',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'inside beginsAt..endsAt: present',
    type: 'general',
    options: window(-DAY, DAY),
    state: undefined,
    timeline: 'present',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'endsAt passed an hour ago: recent',
    type: 'general',
    options: window(-DAY, -HOUR),
    state: undefined,
    timeline: 'past_recent',
    beganAt: null,
    endedAt: null,
  },
  {
    name: 'endsAt passed 8 days ago: distant',
    type: 'general',
    options: window(-9 * DAY, -8 * DAY),
    state: undefined,
    timeline: 'past_distant',
    beganAt: null,
    endedAt: null,
  },
];

const ms = (text: string | null): number | null => (text === null ? null : Date.parse(text));

describe.each([
  ['unplanned', unplanned],
  ['planned', planned],
  ['general', general],
])('%s notices', (_type, rows) => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const subject = notice(row.type, row.options);
    const at = noticeAt(subject, NOW);
    expect({ state: at.state, timeline: at.timelineState, beganAt: at.beganAt, endedAt: at.endedAt }).toEqual(
      {
        state: row.state,
        timeline: row.timeline,
        beganAt: ms(row.beganAt),
        endedAt: ms(row.endedAt),
      },
    );
    expect(timelineState(subject, NOW)).toBe(row.timeline);
    expect(noticeState(subject, NOW)).toBe(row.state);
  });
});

describe('the clock moves a notice along its timeline', () => {
  const maintenance = notice('planned', {
    beginsAt: iso(HOUR),
    endsAt: iso(3 * HOUR),
    updates: [
      { state: 'underway', at: iso(HOUR) },
      { state: 'complete', at: iso(2 * HOUR) },
    ],
  });

  const steps: Array<[number, TimelineState, NoticeState]> = [
    [0, 'future', 'scheduled'],
    [HOUR, 'present', 'underway'],
    [2 * HOUR - 1, 'present', 'underway'],
    [2 * HOUR, 'past_recent', 'complete'],
    [2 * HOUR + RECENT_LIMIT, 'past_recent', 'complete'],
    [2 * HOUR + RECENT_LIMIT + 1, 'past_distant', 'complete'],
  ];
  it.each(steps)('at NOW + %d ms it is %s and %s', (offset, timeline, state) => {
    const at = noticeAt(maintenance, shifted(offset));
    expect([at.timelineState, at.state]).toEqual([timeline, state]);
  });

  it('shows only the updates in effect', () => {
    expect(noticeAt(maintenance, NOW).updateCount).toBe(0);
    expect(noticeAt(maintenance, shifted(HOUR)).updateCount).toBe(1);
    expect(noticeAt(maintenance, shifted(HOUR)).latestUpdate?.state).toBe('underway');
    expect(noticeAt(maintenance, shifted(5 * HOUR)).updateCount).toBe(2);
  });
});

describe('states carried by updates', () => {
  it('an update without a state keeps the state before it', () => {
    const incident = notice('unplanned', {
      updates: [
        { content: 'looking into it', at: iso(-3 * HOUR) },
        { state: 'identified', at: iso(-2 * HOUR) },
        { content: 'fix deploying', at: iso(-HOUR) },
      ],
    });
    expect(incident.updates.map((u) => u.state)).toEqual(['investigating', 'identified', 'identified']);
  });

  it('general notices carry no state at all', () => {
    const note = notice('general', { updates: [{ content: 'hello', at: iso(-HOUR) }] });
    expect(note.updates.map((u) => u.state)).toEqual([undefined]);
    expect(noticeState(note, NOW)).toBeUndefined();
  });

  it('updated_at follows the newest update in effect', () => {
    const incident = notice('unplanned', {
      created: iso(-DAY),
      updates: [
        { state: 'investigating', at: iso(-HOUR) },
        { state: 'resolved', at: iso(HOUR) },
      ],
    });
    expect(noticeAt(incident, NOW).updatedAt).toBe(Date.parse(iso(-HOUR)));
    expect(noticeAt(incident, shifted(2 * HOUR)).updatedAt).toBe(Date.parse(iso(HOUR)));
  });
});

describe('which notices are shown', () => {
  it('takes the id from status first, then spec', () => {
    expect(noticeFromObject(noticeObject('a', 'general', { id: 3, statusId: 7 }))?.id).toBe(7);
    expect(noticeFromObject(noticeObject('a', 'general', { id: 3 }))?.id).toBe(3);
  });

  it('hides notices without an id and notices being deleted', () => {
    expect(noticeFromObject(noticeObject('a', 'general'))).toBeNull();
    expect(noticeFromObject(noticeObject('a', 'general', { id: 3, deleting: true }))).toBeNull();
  });
});
