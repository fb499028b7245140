// decide.ts with a freeze (spec.suspend): a suspended Project starts no build, a suspended
// Environment no backup or rollout; what is under way finishes; resuming lets the bundle go on.
import { describe, expect, it } from '@jest/globals';
import { decideBundle } from '../../../../operator/bundle/decide.ts';
import { bundle, database, environment, project, spec, stored } from '../../../support/builders.ts';
import { deployment, job } from '../builders.ts';
import { inputs, summary, deployBundle, type Case } from './bundle-inputs.ts';

describe('decideBundle: freezes', () => {
  const frozen = environment('staging', stored(), spec({ ...database, suspend: true }));
  const suspendedProject = project(undefined, stored(), spec({ suspend: true }));
  const cases: Case[] = [
    {
      name: 'a suspended project starts no build, and says how to resume it',
      in: { bundle: bundle('b1', stored()), project: suspendedProject },
      then: 'Pending none waiting',
      conditions: 'Built=Unknown/Suspended Ready=Unknown/Suspended',
    },
    {
      name: 'a suspended project lets a build under way finish',
      in: { bundle: bundle('b1', stored()), project: suspendedProject, buildJob: job('b1-build', 'running') },
      then: 'Building none progressing',
      conditions: 'Built=Unknown/Building Ready=Unknown/Building',
    },
    {
      name: 'a suspended environment holds the rollout of a built bundle',
      in: { bundle: deployBundle('b1'), environment: frozen, deployment: deployment({ bundle: 'b0' }) },
      then: 'Built none waiting',
      conditions: 'Built=True/Succeeded Deployed=Unknown/Suspended Ready=Unknown/Suspended',
    },
    {
      name: 'a suspended environment holds the backup too: nothing starts',
      in: { bundle: deployBundle('b1', 0, true), environment: frozen, deployment: deployment() },
      then: 'Built none waiting',
      conditions:
        'Built=True/Succeeded BackedUp=Unknown/Suspended Deployed=Unknown/Suspended Ready=Unknown/Suspended',
    },
    {
      name: 'a backup under way finishes; the rollout after it waits',
      in: {
        bundle: deployBundle('b1', 0, true),
        environment: frozen,
        deployment: deployment(),
        backupJob: job('b1-backup', 'running'),
      },
      then: 'BackingUp none progressing',
      conditions: 'Built=True/Succeeded BackedUp=Unknown/BackingUp Ready=Unknown/BackingUp',
    },
    {
      name: 'a rollout under way goes on to Ready',
      in: { bundle: deployBundle('b1'), environment: frozen, deployment: deployment({ bundle: 'b1' }) },
      then: 'Ready none finished',
      conditions: 'Built=True/Succeeded Deployed=True/Succeeded Ready=True/Succeeded',
    },
  ];
  it.each(cases)('$name', ({ in: given, then, conditions }) => {
    expect(summary(decideBundle(inputs(given)))).toEqual({ then, conditions });
  });

  it('after a backup made before the freeze, the rollout waits for the resume, then starts', () => {
    const given = {
      bundle: deployBundle('b1', 0, true),
      deployment: deployment(),
      backupJob: job('b1-backup', 'succeeded'),
    };
    expect(summary(decideBundle(inputs({ ...given, environment: frozen }))).then).toBe('Built none waiting');
    const resumed = environment('staging', stored(), spec(database));
    expect(decideBundle(inputs({ ...given, environment: resumed })).action.type).toBe('startRollout');
  });
});
