// reuse.ts and automaticRollback (siblings.ts): a rollback puts back only what ran on its
// Environment, and only the project's own image, by digest, goes into a Deployment.
import { describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../../crds/index.ts';
import { decideBundle } from '../../../../operator/bundle/decide.ts';
import {
  NAMESPACE as NS,
  at,
  bundle,
  database,
  deployTo,
  environment,
  spec,
  status,
  stored,
} from '../../../support/builders.ts';
import { condition, deployment, finished } from '../builders.ts';
import { DIGEST, B0_IMAGE, inputs, summary, deployBundle } from './bundle-inputs.ts';

describe('decideBundle: rollback', () => {
  const env = environment('staging', stored(), spec(database), status({ currentBundle: 'b0' }));
  const rollback = (to: string) =>
    bundle(
      'rb',
      stored(200),
      spec({
        deploy: deployTo('staging'),
        source: { bundleRef: { name: to } },
        trigger: { type: 'Rollback' },
      }),
    );
  const b0 = bundle(
    'b0',
    stored(),
    spec({ deploy: deployTo('staging') }),
    status({
      ...finished('Ready'),
      image: B0_IMAGE,
      conditions: [
        condition('Built', 'True', 'Succeeded'),
        condition('Deployed', 'True', 'Succeeded'),
        condition('Ready', 'True', 'Succeeded'),
      ],
    }),
  );

  it("rolls out the source bundle's image without building", () => {
    const rb = rollback('b0');
    const d = decideBundle(
      inputs({
        bundle: rb,
        projectBundles: [b0, rb],
        environment: env,
        deployment: deployment({ bundle: 'b1' }),
      }),
    );
    expect(summary(d)).toEqual({
      then: 'Deploying startRollout progressing',
      conditions: 'Built=True/Reused Deployed=Unknown/Progressing Ready=Unknown/Progressing',
    });
    expect(d.action).toEqual({ type: 'startRollout', container: 'web', image: B0_IMAGE });
    expect(d.status.image).toBe(B0_IMAGE);
  });

  it('fails when the source bundle does not exist or built nothing', () => {
    const missing = decideBundle(
      inputs({ bundle: rollback('gone'), environment: env, deployment: deployment() }),
    );
    expect(summary(missing).conditions).toBe(
      'Built=False/SourceBundleNotFound Ready=False/SourceBundleNotFound',
    );
    const failed = bundle('bf', stored(), status(finished('Failed')));
    const rb = rollback('bf');
    const unbuilt = decideBundle(
      inputs({ bundle: rb, projectBundles: [failed, rb], environment: env, deployment: deployment() }),
    );
    expect(summary(unbuilt).conditions).toBe(
      'Built=False/SourceBundleNotBuilt Ready=False/SourceBundleNotBuilt',
    );
  });

  it('puts back only a bundle that was deployed to the same environment', () => {
    const elsewhere = bundle('bp', stored(), spec({ deploy: deployTo('production') }), status(b0.status!));
    const buildOnly = bundle(
      'bo',
      stored(),
      status({ ...b0.status!, conditions: [condition('Built', 'True', 'Succeeded')] }),
    );
    for (const source of [elsewhere, buildOnly]) {
      const rb = rollback(source.metadata.name);
      const d = decideBundle(
        inputs({ bundle: rb, projectBundles: [source, rb], environment: env, deployment: deployment() }),
      );
      expect(summary(d).conditions).toBe(
        'Built=False/SourceBundleNotDeployed Ready=False/SourceBundleNotDeployed',
      );
      expect(d.action.type).toBe('none');
    }
  });

  describe('automatic, after a failed rollout', () => {
    const auto = environment(
      'staging',
      stored(),
      spec({ ...database, autoRollback: true }),
      status({ currentBundle: 'b0' }),
    );
    const failing = (b: BundleObject, others: BundleObject[] = []) =>
      decideBundle(
        inputs({
          bundle: b,
          projectBundles: [b0, b, ...others],
          environment: auto,
          deployment: deployment({
            bundle: b.metadata.name,
            startedAt: at(90),
            deadlineExceeded: true,
            updated: 0,
          }),
        }),
      );

    it('goes back to the bundle the environment ran before', () => {
      const d = failing(deployBundle('b1'));
      expect(d.phase).toBe('Failed');
      expect(d.action).toEqual({ type: 'rollBack', to: 'b0', environment: 'staging' });
      expect(d.conditions.at(-1)?.message).toMatch(/; rolling back to bundle b0$/);
      // Decided again before its own status shows: the same message, and no second rollback.
      const made = bundle(
        'b1-rollback',
        stored(150),
        spec({
          deploy: deployTo('staging'),
          source: { bundleRef: { name: 'b0' } },
          trigger: { type: 'Rollback' },
        }),
      );
      const again = failing(deployBundle('b1'), [made]);
      expect(again.action).toEqual({ type: 'none' });
      expect(again.conditions.at(-1)?.message).toBe(d.conditions.at(-1)?.message);
    });

    it('does not go back to a current bundle that never ran on the environment (a forged status)', () => {
      const other = bundle('b0', stored(), spec({ deploy: deployTo('production') }), status(b0.status!));
      const b = deployBundle('b1');
      const d = decideBundle(
        inputs({
          bundle: b,
          projectBundles: [other, b],
          environment: auto,
          deployment: deployment({ bundle: 'b1', startedAt: at(90), deadlineExceeded: true, updated: 0 }),
        }),
      );
      expect(d.phase).toBe('Failed');
      expect(d.action).toEqual({ type: 'none' });
    });

    it('leaves it to a newer bundle for the environment, and never rolls back a rollback', () => {
      expect(failing(deployBundle('b1'), [deployBundle('b2', 150)]).action).toEqual({ type: 'none' });
      const rb = bundle(
        'b1',
        stored(),
        spec({
          deploy: deployTo('staging'),
          trigger: { type: 'Rollback' },
          source: { bundleRef: { name: 'b0' } },
        }),
        status({ image: B0_IMAGE, conditions: [condition('Built', 'True', 'Reused')] }),
      );
      expect(failing(rb).action).toEqual({ type: 'none' });
    });

    it('is not held back by a newer bundle that failed or was superseded', () => {
      const failedNewer = bundle(
        'b2',
        stored(150),
        spec({ deploy: deployTo('staging') }),
        status(finished('Failed')),
      );
      expect(failing(deployBundle('b1'), [failedNewer]).action).toEqual({
        type: 'rollBack',
        to: 'b0',
        environment: 'staging',
      });
    });

    it('does nothing for an environment that did not ask', () => {
      const d = decideBundle(
        inputs({
          bundle: deployBundle('b1'),
          projectBundles: [b0],
          environment: env,
          deployment: deployment({ bundle: 'b1', startedAt: at(90), deadlineExceeded: true, updated: 0 }),
        }),
      );
      expect(d.action).toEqual({ type: 'none' });
    });
  });
});

describe('decideBundle: only its own image is deployed', () => {
  it('refuses an image from a forged status: another registry, another project, or no digest', () => {
    const env = environment('staging', stored(), spec(database));
    for (const image of [
      `evil.example/pwn@${DIGEST}`,
      `registry.test/${NS}/other:b1@${DIGEST}`,
      `registry.test/other-ns/shop:b1@${DIGEST}`,
      `registry.test/${NS}/shop:b1`,
    ]) {
      const b = bundle(
        'b1',
        stored(),
        spec({ deploy: deployTo('staging') }),
        status({ phase: 'Built', image, conditions: [condition('Built', 'True', 'Succeeded')] }),
      );
      const d = decideBundle(
        inputs({ bundle: b, environment: env, deployment: deployment({ bundle: 'b0' }) }),
      );
      expect(summary(d)).toEqual({
        then: 'Failed none finished',
        conditions: 'Built=True/Succeeded Deployed=False/ForeignImage Ready=False/ForeignImage',
      });
      expect(d.conditions.at(-1)?.message).toContain(
        `status.image ${image} is not an image of this project's repository`,
      );
    }
  });
});
