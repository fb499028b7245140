// The status kinds' pure decisions: which page serves a namespace, whether an entry's references
// hold, and what a notice's status shows at a moment.
import { describe, expect, it } from '@jest/globals';
import { decideEntry, decidePage, noticeStatus } from '../../../../operator/status-page/decide.ts';
import { spec, statusComponent, statusNotice, statusPage, stored } from '../../../support/builders.ts';

const parents: Record<string, string | null> = { api: null, db: 'api', loop: 'loop-b', 'loop-b': 'loop' };
const parentOf = (name: string) => parents[name];

describe('decidePage', () => {
  it('the oldest page of a namespace is Published; a later one is a duplicate', () => {
    const first = statusPage('status', stored(0));
    const second = statusPage('other', stored(5));
    expect(decidePage(first, [second, first])).toMatchObject({ status: 'True', reason: 'Published' });
    expect(decidePage(second, [second, first])).toMatchObject({
      status: 'False',
      reason: 'DuplicateStatusPage',
      message: "status is this namespace's status page; remove this one",
    });
  });
});

describe('decideEntry', () => {
  it('publishes a component whose parents exist, under its id', () => {
    const db = statusComponent('db', stored(), spec({ id: 7, parentRef: { name: 'api' } }));
    expect(decideEntry('StatusComponent', db, { sameId: [db], parentOf })).toMatchObject({
      status: 'True',
      reason: 'Published',
      message: 'shown in the status API as id 7',
    });
  });

  it('names the older holder of a duplicate id, a parent cycle and a missing component', () => {
    const older = statusComponent('api', stored(0), spec({ id: 3 }));
    const newer = statusComponent('db', stored(9), spec({ id: 3 }));
    expect(decideEntry('StatusComponent', newer, { sameId: [older, newer], parentOf })).toMatchObject({
      reason: 'DuplicateId',
      message: 'id 3 already belongs to api',
    });
    const loop = statusComponent('loop', stored(), spec({ id: 4, parentRef: { name: 'loop-b' } }));
    expect(decideEntry('StatusComponent', loop, { sameId: [loop], parentOf })).toMatchObject({
      reason: 'ParentCycle',
    });
    const notice = statusNotice(
      'n',
      stored(),
      spec({ id: 1, componentRefs: [{ name: 'api' }, { name: 'cdn' }] }),
    );
    expect(decideEntry('StatusNotice', notice, { sameId: [notice], parentOf })).toMatchObject({
      status: 'False',
      reason: 'ComponentNotFound',
      message: 'no such component: cdn',
    });
  });
});

describe('noticeStatus', () => {
  it('shows the state in effect and looks again when the next dated update comes due', () => {
    const notice = statusNotice(
      'n',
      stored(),
      spec({
        id: 1,
        updates: [
          { state: 'investigating', content: 'Looking.', at: '2026-01-02T03:00:00.000Z' },
          { state: 'resolved', content: 'Fixed.', at: '2026-01-02T04:00:00.000Z' },
        ],
      }),
    );
    const derived = noticeStatus(notice, new Date('2026-01-02T03:30:00.000Z'));
    expect(derived.status).toMatchObject({ state: 'investigating', endedAt: null });
    expect(derived.requeueAfterMs).toBe(30 * 60_000 + 1000);
  });
});
