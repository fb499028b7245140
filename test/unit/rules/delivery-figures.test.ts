// The four delivery figures from a project's bundles (rules/delivery-figures.ts), on a history a
// person can count by hand: what counts as a deployment, a failed change and a restore.
import { describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../crds/index.ts';
import { deliveryFigures } from '../../../rules/delivery-figures.ts';
import { bundle, deployTo, spec, status, stored } from '../../support/builders.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-31T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const condition = (type: string, s: 'True' | 'False', at: number) => ({
  type,
  status: s,
  reason: s === 'True' ? 'Succeeded' : 'RolloutFailed',
  message: '',
  lastTransitionTime: iso(at),
});

/** A push's bundle deployed to `environment` at `at` (ms), of a commit made `leadMs` before. */
function deployed(
  name: string,
  environment: string,
  at: number,
  leadMs?: number,
  extra: object = {},
): BundleObject {
  return bundle(
    name,
    stored(),
    spec({
      source: {
        git: { commit: 'a'.repeat(40), ...(leadMs === undefined ? {} : { committedAt: iso(at - leadMs) }) },
      },
      trigger: { type: 'Webhook' },
      deploy: deployTo(environment),
      ...extra,
    }),
    status({
      phase: 'Ready',
      finishedAt: iso(at),
      conditions: [condition('Built', 'True', at - 60_000), condition('Deployed', 'True', at)],
    }),
  );
}

function failed(name: string, environment: string, at: number): BundleObject {
  return bundle(
    name,
    stored(),
    spec({
      source: { git: { commit: 'b'.repeat(40) } },
      trigger: { type: 'Webhook' },
      deploy: deployTo(environment),
    }),
    status({ phase: 'Failed', finishedAt: iso(at), conditions: [condition('Built', 'True', at - 60_000)] }),
  );
}

function rollback(
  name: string,
  to: string,
  environment: string,
  createdAt: number,
  at: number,
): BundleObject {
  const b = deployed(name, environment, at, undefined, {
    source: { bundleRef: { name: to } },
    trigger: { type: 'Rollback' },
  });
  b.metadata.creationTimestamp = iso(createdAt);
  return b;
}

describe('delivery figures', () => {
  it('count deployments, lead time, failed changes and restores as a person would', () => {
    const h = 3_600_000;
    const bundles = [
      // production, in the last 30 days: d1 (lead 2 h), d2 (lead 4 h) then rolled back 10 min later
      // by r1 (Ready 5 min after), f1 failed, restored by d3 (lead 1 h) 30 min later.
      deployed('d1', 'production', NOW - 20 * DAY, 2 * h),
      deployed('d2', 'production', NOW - 10 * DAY, 4 * h),
      rollback('r1', 'd1', 'production', NOW - 10 * DAY + 10 * 60_000, NOW - 10 * DAY + 15 * 60_000),
      failed('f1', 'production', NOW - 5 * DAY),
      deployed('d3', 'production', NOW - 5 * DAY + 30 * 60_000, h),
      // Before the window: not counted.
      deployed('old', 'production', NOW - 40 * DAY, h),
      // staging: one deployment that does not know its commit's time.
      deployed('s1', 'staging', NOW - DAY),
      // A preview's bundle and a bundle still building are no rollouts.
      deployed('pr', 'staging', NOW - DAY, h, {
        trigger: { type: 'PullRequest', previewRef: { name: 'shop-pr-1' } },
      }),
      bundle('building', stored(), spec({ deploy: deployTo('production') }), status({ phase: 'Building' })),
    ];
    expect(deliveryFigures(bundles, NOW - 30 * DAY, NOW)).toEqual([
      {
        environment: 'production',
        deployments: 3,
        perDay: 0.1,
        leadTime: { median: 2 * 3600, count: 3 },
        // d2 (rolled back) and f1 (failed) of d1, d2, f1, d3.
        changeFailure: { failed: 2, changes: 4, rate: 0.5 },
        // d2: 5 min from the rollback's creation to its Ready; f1: 30 min to d3. Median of two.
        timeToRestore: { median: (5 * 60 + 30 * 60) / 2, count: 2 },
      },
      {
        environment: 'staging',
        deployments: 1,
        perDay: 0.03,
        leadTime: null,
        changeFailure: { failed: 0, changes: 1, rate: 0 },
        timeToRestore: null,
      },
    ]);
  });

  it("a promotion's lead time counts from the promoted commit", () => {
    const source = deployed('s1', 'staging', NOW - 2 * DAY, 3_600_000);
    const promoted = deployed('p1', 'production', NOW - DAY, undefined, {
      source: { bundleRef: { name: 's1' } },
      trigger: { type: 'Promotion', promotionRef: { name: 'release-1' } },
    });
    const [production] = deliveryFigures([source, promoted], NOW - 30 * DAY, NOW);
    expect(production).toMatchObject({
      environment: 'production',
      deployments: 1,
      leadTime: { median: DAY / 1000 + 3600, count: 1 },
    });
  });
});
