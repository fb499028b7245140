// The bundle decision's declared steps (steps.ts), addressed by name, and the one rule that
// derives Ready from the step that stopped the chain (chain.ts readyOf).
import { describe, expect, it } from '@jest/globals';
import { Chain, readyOf, type StopHow } from '../../../../operator/bundle/chain.ts';
import { BUNDLE_STEPS, type BundleStepName } from '../../../../operator/bundle/steps.ts';
import type { BundleInputs } from '../../../../operator/bundle/decision.ts';
import { environment, spec, stored } from '../../../support/builders.ts';
import { deployment, job } from '../builders.ts';
import { DIGEST, built, deployBundle, inputs } from './bundle-inputs.ts';

/** Runs one step, by name, after the steps before it passed over the same input. */
function runStep(name: BundleStepName, input: BundleInputs) {
  const chain = new Chain(input);
  for (const step of BUNDLE_STEPS) {
    const stop = step.run(input, chain);
    if (step.name === name) return { stop, conditions: chain.conditions };
    if (stop) throw new Error(`step ${step.name} stopped before ${name}: ${stop.reason}`);
  }
  throw new Error(`no step ${name}`);
}

describe('the bundle steps', () => {
  it('run in the declared order', () => {
    expect(BUNDLE_STEPS.map((s) => s.name)).toEqual([
      'project',
      'superseded',
      'built',
      'deployAsked',
      'environment',
      'environmentFree',
      'environmentFrozen',
      'backedUp',
      'deployed',
    ]);
  });

  it('environmentFree: another bundle still rolling out goes first, and the bundle waits in line', () => {
    const b1 = deployBundle('b1', 10);
    const b0 = deployBundle('b0', 0);
    const input = inputs({
      bundle: b1,
      projectBundles: [b0, b1],
      environment: environment('staging', stored()),
      deployment: deployment({ bundle: 'b0' }),
    });
    expect(runStep('environmentFree', input).stop).toMatchObject({
      how: 'inLine',
      owner: 'Deployed',
      reason: 'WaitingForEnvironment',
      message: 'waiting for bundle b0 to finish rolling out to environment staging',
    });
  });

  it('environmentFrozen: passes over a rollout this bundle has begun', () => {
    const input = inputs({
      bundle: deployBundle('b1'),
      environment: environment('staging', stored(), spec({ suspend: true })),
      deployment: deployment({ bundle: 'b1' }),
    });
    expect(runStep('environmentFrozen', input).stop).toBeUndefined();
  });

  it('backedUp: passes when the bundle asks for no backup, stating nothing', () => {
    const input = inputs({
      bundle: deployBundle('b1'),
      environment: environment('staging', stored()),
      deployment: deployment({ bundle: 'b0' }),
    });
    expect(runStep('backedUp', input)).toEqual({
      stop: undefined,
      conditions: [expect.objectContaining({ type: 'Built' })],
    });
  });

  it('project: a bundle whose project is gone waits, owning no condition', () => {
    expect(runStep('project', inputs({ project: undefined })).stop).toMatchObject({
      how: 'waiting',
      reason: 'ProjectNotFound',
      message: 'project shop does not exist',
    });
  });

  it('deployAsked: a bundle without spec.deploy succeeds once built', () => {
    const input = inputs({ bundle: built('b1') });
    expect(runStep('deployAsked', input).stop).toMatchObject({ how: 'succeeded', phase: 'Built' });
  });

  it('deployed: a complete rollout is the success that makes the bundle Ready', () => {
    const input = inputs({
      bundle: deployBundle('b1'),
      environment: environment('staging', stored()),
      deployment: deployment({ bundle: 'b1' }),
    });
    const { stop } = runStep('deployed', input);
    expect(stop).toMatchObject({ how: 'succeeded', phase: 'Ready', owner: 'Deployed', reason: 'Succeeded' });
    expect(readyOf(stop!)).toMatchObject({
      status: 'True',
      message: 'environment staging runs image ' + `registry.test/team/shop:b1@${DIGEST}`,
    });
  });

  it('built: a running build Job is progress, owned by Built', () => {
    const input = inputs({ buildJob: job('b1-build', 'running') });
    expect(runStep('built', input).stop).toMatchObject({
      how: 'progressing',
      owner: 'Built',
      reason: 'Building',
    });
  });
});

describe('Ready, derived from the stop', () => {
  const cases: [StopHow, string][] = [
    ['progressing', 'Unknown'],
    ['inLine', 'Unknown'],
    ['waiting', 'False'],
    ['blocked', 'False'],
    ['failed', 'False'],
    ['succeeded', 'True'],
  ];
  it.each(cases)('a chain that stops %s is Ready=%s, with the stop’s reason and message', (how, status) => {
    expect(readyOf({ how, reason: 'Queued', message: 'why' })).toEqual({
      type: 'Ready',
      status,
      reason: 'Queued',
      message: 'why',
    });
  });

  it('the stopping step’s own condition comes before Ready, with the status its stop implies', () => {
    const chain = new Chain(inputs());
    const decision = chain.end({
      how: 'blocked',
      phase: 'Building',
      owner: 'Built',
      reason: 'Unschedulable',
      message: 'no node',
    });
    expect(decision.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'Built=Unknown/Unschedulable',
      'Ready=False/Unschedulable',
    ]);
    expect(decision.outcome).toBe('waiting');
  });
});
