import { describe, expect, it } from '@jest/globals';
import { nextConditions, readyEvents } from '../../../../operator/reconcile/status-writer.ts';
import { T0, at } from '../../../support/builders.ts';
import { condition } from '../builders.ts';

const later = new Date(T0.getTime() + 60_000);
const ready = (status: 'True' | 'False' | 'Unknown', reason: string, message = reason) => ({
  type: 'Ready',
  status,
  reason,
  message,
});

describe('status conditions as kstatus reads them', () => {
  it('marks an object on its way Reconciling, a stuck one Stalled, a ready one neither', () => {
    const building = nextConditions(undefined, [ready('Unknown', 'Building')], 1, T0);
    expect(building.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Ready', 'Unknown', 'Building'],
      ['Reconciling', 'True', 'Building'],
    ]);
    const failed = nextConditions(building, [ready('False', 'BuildFailed', 'exit 1')], 1, later);
    expect(failed.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Ready', 'False', 'BuildFailed', 'exit 1'],
      ['Stalled', 'True', 'BuildFailed', 'exit 1'],
    ]);
    expect(nextConditions(failed, [ready('True', 'Succeeded')], 1, later).map((c) => c.type)).toEqual([
      'Ready',
    ]);
  });

  it('keeps steps in the order they were first reached, Ready after them', () => {
    let conditions = nextConditions(
      undefined,
      [{ type: 'Built', status: 'Unknown', reason: 'Building', message: '' }, ready('Unknown', 'Building')],
      1,
      T0,
    );
    conditions = nextConditions(
      conditions,
      [
        { type: 'Built', status: 'True', reason: 'Succeeded', message: '' },
        { type: 'Deployed', status: 'Unknown', reason: 'Progressing', message: '' },
        ready('Unknown', 'Progressing'),
      ],
      1,
      later,
    );
    expect(conditions.map((c) => c.type)).toEqual(['Built', 'Deployed', 'Ready', 'Reconciling']);
  });

  it('moves lastTransitionTime only when a status changes, Reconciling included', () => {
    const first = nextConditions(
      [condition('Ready', 'Unknown', 'Queued')],
      [ready('Unknown', 'Queued')],
      1,
      T0,
    );
    const again = nextConditions(first, [ready('Unknown', 'Building')], 1, later);
    expect(again.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(at(0));
    expect(again.find((c) => c.type === 'Reconciling')?.lastTransitionTime).toBe(T0.toISOString());
    expect(again.find((c) => c.type === 'Reconciling')?.reason).toBe('Building');
  });

  it('records an Event when Ready moves: Normal to True, Warning otherwise, none when unchanged', () => {
    const before = [condition('Ready', 'False', 'SecretNotFound', 'no secret')];
    expect(readyEvents(before, [condition('Ready', 'True', 'Valid', 'ok')])).toEqual([
      { type: 'Normal', reason: 'Valid', message: 'ok' },
    ]);
    expect(readyEvents(undefined, before)).toEqual([
      { type: 'Warning', reason: 'SecretNotFound', message: 'no secret' },
    ]);
    expect(readyEvents(before, before)).toEqual([]);
  });
});
