import { describe, expect, it } from '@jest/globals';
import { leaseAction, type LeaseRecord, type Observation } from '../../../lib/leader.ts';

const held = (holder: string, rv = '7', durationS = 15): LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: durationS,
  leaseTransitions: 2,
  resourceVersion: rv,
});

describe('leaseAction', () => {
  const cases: Array<{
    name: string;
    record: LeaseRecord | undefined;
    observation?: Observation;
    now: number;
    expected: ReturnType<typeof leaseAction>;
  }> = [
    { name: 'no lease yet: create it', record: undefined, now: 0, expected: { action: 'create' } },
    { name: 'we hold it: renew', record: held('me'), now: 0, expected: { action: 'renew' } },
    {
      name: 'released (empty holder): take it at once, counting a transition',
      record: { ...held(''), leaseDurationSeconds: 1 },
      now: 0,
      expected: { action: 'take', leaseTransitions: 3 },
    },
    {
      name: 'someone else holds a record we have just seen: wait a full lease duration',
      record: held('other', '7'),
      observation: { resourceVersion: '6', observedAtMs: 0 },
      now: 100_000,
      expected: { action: 'wait', holder: 'other', expiresInMs: 15_000 },
    },
    {
      name: 'the same record for less than the duration: still wait',
      record: held('other', '7'),
      observation: { resourceVersion: '7', observedAtMs: 100_000 },
      now: 114_999,
      expected: { action: 'wait', holder: 'other', expiresInMs: 1 },
    },
    {
      name: 'the same record for the whole duration: the holder is gone, take it',
      record: held('other', '7'),
      observation: { resourceVersion: '7', observedAtMs: 100_000 },
      now: 115_000,
      expected: { action: 'take', leaseTransitions: 3 },
    },
    {
      name: 'resourceVersions compare by equality only ("10" after "9" is just different)',
      record: held('other', '10'),
      observation: { resourceVersion: '9', observedAtMs: 0 },
      now: 1_000_000,
      expected: { action: 'wait', holder: 'other', expiresInMs: 15_000 },
    },
  ];
  it.each(cases)('$name', ({ record, observation, now, expected }) => {
    expect(leaseAction(record, observation, 'me', now)).toEqual(expected);
  });
});
