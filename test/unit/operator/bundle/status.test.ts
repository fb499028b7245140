// status.ts: what a decision writes into a Bundle's status, and the Events of its transitions.
import { describe, expect, it } from '@jest/globals';
import { bundleStatusUpdate, transitionEvents } from '../../../../operator/bundle/status.ts';
import type { BundleDecision } from '../../../../operator/bundle/decision.ts';
import { bundle, stored } from '../../../support/builders.ts';
import { condition } from '../builders.ts';

describe('bundle status and events', () => {
  const decision = (over: Partial<BundleDecision>): BundleDecision => ({
    skip: false,
    phase: 'Building',
    conditions: [],
    action: { type: 'none' },
    outcome: 'progressing',
    status: {},
    ...over,
  });

  it('sets observedGeneration only when the chain has ended (the status writer writes the generation)', () => {
    const b = bundle('b1', stored());
    const progressing = bundleStatusUpdate(b, decision({}));
    expect(progressing.fields).not.toHaveProperty('observedGeneration');
    expect(progressing.observed).toBe(false);
    const done = bundleStatusUpdate(b, decision({ phase: 'Built', outcome: 'finished' }));
    expect(done.observed).toBe(true);
  });

  it('names one Event per step transition, with Warnings for failures', () => {
    const before = [condition('Built', 'Unknown', 'Building'), condition('Ready', 'Unknown', 'Building')];
    const after = [
      condition('Built', 'False', 'BuildFailed', 'exit 1'),
      condition('Ready', 'False', 'BuildFailed', 'exit 1'),
    ];
    expect(transitionEvents(before, after)).toEqual([
      { type: 'Warning', reason: 'BuildFailed', message: 'exit 1' },
    ]);
    expect(transitionEvents(undefined, [condition('Built', 'Unknown', 'Building', 'm')])).toEqual([
      { type: 'Normal', reason: 'BuildStarted', message: 'm' },
    ]);
    expect(transitionEvents(before, before)).toEqual([]);
    expect(
      transitionEvents(
        [condition('Deployed', 'Unknown', 'Progressing')],
        [condition('Deployed', 'True', 'Succeeded', 'ok'), condition('Ready', 'True', 'Succeeded', 'ok')],
      ),
    ).toEqual([
      { type: 'Normal', reason: 'Deployed', message: 'ok' },
      { type: 'Normal', reason: 'Ready', message: 'ok' },
    ]);
  });
});
