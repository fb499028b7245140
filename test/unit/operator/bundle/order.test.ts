// siblings.ts and workload-readings.ts: which of an environment's bundles wins, and what an acting
// decision holds.
import { describe, expect, it } from '@jest/globals';
import { decideBundle } from '../../../../operator/bundle/decide.ts';
import { contendedBy } from '../../../../operator/bundle/workload-readings.ts';
import {
  NAMESPACE as NS,
  bundle,
  database,
  deployTo,
  environment,
  spec,
  status,
  stored,
} from '../../../support/builders.ts';
import { condition, deployment, finished, job } from '../builders.ts';
import { inputs, summary, deployBundle } from './bundle-inputs.ts';

describe('decideBundle: ordering between bundles of one environment', () => {
  const env = environment('staging', stored(), spec(database));

  it('a newer bundle for the same environment supersedes one not yet rolled out', () => {
    const older = deployBundle('b1', 0);
    const newer = bundle('b2', stored(10), spec({ deploy: deployTo() }));
    const d = decideBundle(
      inputs({ bundle: older, projectBundles: [older, newer], environment: env, deployment: deployment() }),
    );
    expect(summary(d)).toEqual({
      then: 'Superseded none finished',
      conditions: 'Deployed=False/Superseded Ready=False/Superseded',
    });
    expect(d.conditions.at(-1)?.message).toBe('bundle b2 for environment staging is newer');
  });

  it('a superseded bundle stops its running build Job', () => {
    const older = bundle('b1', stored(), spec({ deploy: deployTo() }));
    const newer = bundle('b2', stored(10), spec({ deploy: deployTo() }));
    const d = decideBundle(
      inputs({ bundle: older, projectBundles: [older, newer], buildJob: job('b1-build', 'running') }),
    );
    expect(d.action).toEqual({ type: 'stopJobs' });
    expect(d.phase).toBe('Superseded');
  });

  it('a bundle whose rollout has begun is not superseded; the newer one waits for it', () => {
    const older = deployBundle('b1', 0);
    const newer = deployBundle('b2', 10);
    const dep = deployment({ bundle: 'b1', updated: 0 });
    const all = [older, newer];
    expect(
      decideBundle(inputs({ bundle: older, projectBundles: all, environment: env, deployment: dep })).phase,
    ).toBe('Deploying');
    expect(
      decideBundle(inputs({ bundle: newer, projectBundles: all, environment: env, deployment: dep })).phase,
    ).toBe('Built');
  });

  it('trusts its own Progressing condition when the cached Deployment lags behind', () => {
    const older = deployBundle('b1', 0);
    older.status!.conditions!.push(condition('Deployed', 'Unknown', 'Progressing'));
    const newer = deployBundle('b2', 10);
    const d = decideBundle(
      inputs({
        bundle: older,
        projectBundles: [older, newer],
        environment: env,
        deployment: deployment({ bundle: 'b0' }),
      }),
    );
    expect(d.phase).not.toBe('Superseded');
  });

  /** A bundle for env whose status says Deployed=Unknown/`reason`, decided against a Deployment running b0. */
  const decidedAfter = (reason: string) => {
    const b1 = deployBundle('b1', 0);
    b1.status!.conditions!.push(condition('Deployed', 'Unknown', reason));
    return decideBundle(
      inputs({
        bundle: b1,
        projectBundles: [b1],
        environment: env,
        deployment: deployment({ bundle: 'b0' }),
      }),
    );
  };

  it('leaves a hand-made rollback alone: kubectl rollout undo during its rollout fails it as RolloutReplaced', () => {
    // Its status says its rollout started; the Deployment runs b0's pod template again.
    const d = decidedAfter('Progressing');
    expect(d.action).toEqual({ type: 'none' });
    expect(summary(d)).toEqual({
      then: 'Failed none finished',
      conditions: 'Built=True/Succeeded Deployed=False/RolloutReplaced Ready=False/RolloutReplaced',
    });
    expect(d.conditions.find((c) => c.type === 'Ready')?.message).toMatch(
      /^Deployment shop-web was changed to bundle b0 while this bundle rolled out \(kubectl rollout undo\?\)/,
    );
  });

  it.each(['DeploymentNotFound', 'EnvironmentNotFound', 'WaitingForEnvironment'])(
    'rolls out a bundle that waited with Deployed=Unknown/%s once it can (waiting is not a started rollout)',
    (reason) => {
      expect(decidedAfter(reason).action.type).toBe('startRollout');
    },
  );

  it('an older bundle never replaces a newer one the environment already runs', () => {
    const older = deployBundle('b1', 0);
    const newer = bundle('b2', stored(10), spec({ deploy: deployTo() }), status(finished('Ready')));
    const d = decideBundle(
      inputs({
        bundle: older,
        projectBundles: [older, newer],
        environment: env,
        deployment: deployment({ bundle: 'b2' }),
      }),
    );
    expect(d.phase).toBe('Superseded');
  });

  it('a newer bundle for another environment does not supersede', () => {
    const mine = deployBundle('b1', 0);
    const other = bundle('b2', stored(10), spec({ deploy: deployTo('production') }));
    const d = decideBundle(
      inputs({ bundle: mine, projectBundles: [mine, other], environment: env, deployment: deployment() }),
    );
    expect(d.action.type).toBe('startRollout');
  });

  it('bundles created in the same second are ordered by name', () => {
    const a = deployBundle('b-a', 0);
    const b = deployBundle('b-b', 0);
    const all = [a, b];
    expect(
      decideBundle(inputs({ bundle: a, projectBundles: all, environment: env, deployment: deployment() }))
        .phase,
    ).toBe('Superseded');
    expect(
      decideBundle(inputs({ bundle: b, projectBundles: all, environment: env, deployment: deployment() }))
        .phase,
    ).toBe('Deploying');
  });
});

describe('what an acting decision holds (contendedBy)', () => {
  const staging = environment('staging', stored());
  const production = environment('production', stored(), spec({ deploymentRef: { name: 'shop-prod' } }));
  const toStaging = bundle('b1', stored(), spec({ deploy: deployTo('staging') }));
  const toProduction = bundle('b2', stored(), spec({ deploy: deployTo('production') }));

  it('the Deployment it rolls out to: environments of one project hold nothing in common', () => {
    expect(contendedBy(inputs({ bundle: toStaging, environment: staging }))).toEqual([
      `deployment:${NS}/shop-web`,
    ]);
    expect(contendedBy(inputs({ bundle: toProduction, environment: production }))).toEqual([
      `deployment:${NS}/shop-prod`,
    ]);
  });

  it('two environments on one Deployment share its lock; a missing environment is locked by name', () => {
    const alias = environment('preview', stored());
    const toPreview = bundle('b3', stored(), spec({ deploy: deployTo('preview') }));
    expect(contendedBy(inputs({ bundle: toPreview, environment: alias }))).toEqual(
      contendedBy(inputs({ bundle: toStaging, environment: staging })),
    );
    expect(contendedBy(inputs({ bundle: toPreview }))).toEqual([`environment:${NS}/preview`]);
  });

  it('a bundle that only builds holds nothing', () => {
    expect(contendedBy(inputs())).toEqual([]);
  });
});
