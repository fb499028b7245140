// A bundle's life-cycle events, read from the status just written (operator/bundle/lifecycle.ts):
// what reporting to providers and notifications will observe.
import { describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../../crds/index.ts';
import {
  BundleLifecycle,
  lifecycleEvents,
  type BundleLifecycleEvent,
} from '../../../../operator/bundle/lifecycle.ts';
import { countStep } from '../../../../operator/bundle/step-metrics.ts';
import { registry } from '../../../../lib/metrics.ts';
import { T0, bundle, deployTo, spec, stored } from '../../../support/builders.ts';
import { condition } from '../builders.ts';

type Status = NonNullable<BundleObject['status']>;
const NOW = new Date(T0.getTime() + 90_000);
const b = bundle('shop-1', stored(), spec({ deploy: deployTo('staging') }));
const st = (phase: Status['phase'], ...conditions: Status['conditions'] & object): Status => ({
  phase,
  conditions,
});
const types = (events: BundleLifecycleEvent[]) => events.map((e) => [e.type, e.step, e.reason]);

describe('lifecycleEvents', () => {
  it('announces the build starting once, when startedAt is first written', () => {
    const building = {
      ...st('Building', condition('Built', 'Unknown', 'Building')),
      startedAt: T0.toISOString(),
    };
    expect(types(lifecycleEvents(b, undefined, building, {}, NOW))).toEqual([
      ['Started', undefined, 'Building'],
    ]);
    expect(lifecycleEvents(b, building, { ...building, phase: 'Building' }, {}, NOW)).toEqual([]);
  });

  it('announces each step that succeeded, with when it began', () => {
    const before = st('Building', condition('Built', 'Unknown', 'Building'));
    const after = st(
      'Deploying',
      condition('Built', 'True', 'Succeeded'),
      condition('Deployed', 'Unknown', 'Progressing'),
    );
    const events = lifecycleEvents(b, before, after, { build: T0.getTime() }, NOW);
    expect(types(events)).toEqual([['Built', 'build', 'Succeeded']]);
    expect(events[0]!.stepStartedAt).toBe(T0.getTime());
    expect(events[0]!.bundle.status).toBe(after);
  });

  it('a rollback bundle that is deployed is also RolledBack', () => {
    const rollback = bundle(
      'shop-1-rollback',
      stored(),
      spec({ deploy: deployTo('staging'), trigger: { type: 'Rollback' } }),
    );
    const before = st(
      'Deploying',
      condition('Built', 'True', 'Reused'),
      condition('Deployed', 'Unknown', 'Progressing'),
    );
    const after = st(
      'Ready',
      condition('Built', 'True', 'Reused'),
      condition('Deployed', 'True', 'Succeeded'),
    );
    expect(types(lifecycleEvents(rollback, before, after, {}, NOW))).toEqual([
      ['Deployed', 'deploy', 'Succeeded'],
      ['RolledBack', 'deploy', 'Succeeded'],
    ]);
  });

  it('a failure names the step that failed, and is announced once', () => {
    const before = st(
      'BackingUp',
      condition('Built', 'True', 'Succeeded'),
      condition('BackedUp', 'Unknown', 'BackingUp'),
    );
    const after = st(
      'Failed',
      condition('Built', 'True', 'Succeeded'),
      condition('BackedUp', 'False', 'BackupFailed', 'backup Job x failed'),
      condition('Ready', 'False', 'BackupFailed', 'backup Job x failed'),
    );
    expect(types(lifecycleEvents(b, before, after, {}, NOW))).toEqual([['Failed', 'backup', 'BackupFailed']]);
    expect(lifecycleEvents(b, after, after, {}, NOW)).toEqual([]);
  });

  it('a rollback whose source bundle is missing fails at its build step, before any Job', () => {
    const after = st(
      'Failed',
      condition('Built', 'False', 'SourceBundleNotFound'),
      condition('Ready', 'False', 'SourceBundleNotFound', 'bundle x (source.bundleRef) does not exist'),
    );
    expect(types(lifecycleEvents(b, undefined, after, {}, NOW))).toEqual([
      ['Failed', 'build', 'SourceBundleNotFound'],
    ]);
  });

  it('a bundle a newer one superseded says so once, with no step', () => {
    const before = st('Building', condition('Built', 'Unknown', 'Building'));
    const after = st(
      'Superseded',
      condition('Built', 'Unknown', 'Building'),
      condition('Deployed', 'False', 'Superseded'),
      condition('Ready', 'False', 'Superseded', 'bundle shop-2 for environment staging is newer'),
    );
    expect(types(lifecycleEvents(b, before, after, {}, NOW))).toEqual([
      ['Superseded', undefined, 'Superseded'],
    ]);
    expect(lifecycleEvents(b, after, after, {}, NOW)).toEqual([]);
  });
});

describe('BundleLifecycle', () => {
  it('hands every event to every observer; one that throws does not stop the others', () => {
    const warnings: unknown[] = [];
    const log = { warn: (...args: unknown[]) => warnings.push(args) } as never;
    const lifecycle = new BundleLifecycle(log);
    const seen: string[] = [];
    lifecycle.subscribe(() => {
      throw new Error('observer bug');
    });
    const unsubscribe = lifecycle.subscribe((e) => seen.push(e.type));
    const event: BundleLifecycleEvent = {
      type: 'Built',
      bundle: b,
      reason: 'Succeeded',
      message: '',
      at: NOW,
    };
    lifecycle.publish([event, { ...event, type: 'Deployed' }]);
    expect(seen).toEqual(['Built', 'Deployed']);
    expect(warnings).toHaveLength(2);
    unsubscribe();
    lifecycle.publish([event]);
    expect(seen).toEqual(['Built', 'Deployed']);
  });

  it('step metrics count a step that ended after it began, by outcome', async () => {
    const count = async (step: string, outcome: string) => {
      const values = (await registry.getSingleMetric('slipway_operator_steps_total')?.get())?.values ?? [];
      return values.find((v) => v.labels.step === step && v.labels.outcome === outcome)?.value ?? 0;
    };
    const backupFailed = await count('backup', 'failed');
    const base = { bundle: b, reason: 'r', message: '', at: NOW };
    countStep({ ...base, type: 'Failed', step: 'backup', stepStartedAt: T0.getTime() });
    countStep({ ...base, type: 'Failed', step: 'backup' }); // began when? unknown: not counted
    countStep({ ...base, type: 'Started', step: 'backup', stepStartedAt: T0.getTime() });
    expect(await count('backup', 'failed')).toBe(backupFailed + 1);
  });
});
