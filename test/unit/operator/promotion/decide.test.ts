// What a Promotion does next (operator/promotion/decide.ts) when it can no longer do what it was
// asked, or must not yet: the Environment's own source, a newer image already running, a bundle
// replaced or rolled back on the source, a component that does not exist, a bundle on its way.
import { describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../../crds/index.ts';
import { decidePromotion, type PromotionFacts } from '../../../../operator/promotion/decide.ts';
import { bundleOrigin } from '../../../../rules/bundle-origin.ts';
import {
  at,
  bundle,
  deployTo,
  environment,
  project,
  promotion,
  spec,
  status,
  stored,
} from '../../../support/builders.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const IMAGE = (name: string) => `registry.test/team/shop:${name}@sha256:${'a'.repeat(64)}`;
const cond = (type: string, s: string, time: string) => ({
  type,
  status: s,
  reason: 'Succeeded',
  message: '',
  lastTransitionTime: time,
});

/** A push's bundle created `created` s after T0, Ready on `environment` at `deployedAt`. */
function ran(
  name: string,
  environmentName: string,
  created: number,
  deployedAt: string,
  trigger = 'Webhook',
): BundleObject {
  return bundle(
    name,
    stored(created),
    spec({ deploy: deployTo(environmentName), trigger: { type: trigger } }),
    status({
      phase: 'Ready',
      image: IMAGE(name),
      conditions: [cond('Built', 'True', deployedAt), cond('Deployed', 'True', deployedAt)],
    }),
  );
}

function facts(more: Partial<PromotionFacts> & { bundles?: BundleObject[] } = {}): PromotionFacts {
  const bundles = more.bundles ?? [ran('b1', 'staging', 0, at(60))];
  const get = (name: string) => bundles.find((b) => b.metadata.name === name);
  const p = more.promotion ?? promotion('release-1', stored(), spec({ bundleRef: { name: 'b1' } }));
  return {
    promotion: p,
    project: project('shop', stored()),
    from: environment('staging', stored()),
    to: environment('production', stored()),
    sourceName: p.spec.bundleRef?.name,
    source: get(p.spec.bundleRef?.name ?? ''),
    projectBundles: bundles,
    rollout: undefined,
    rolloutGone: false,
    origin: (b) => bundleOrigin(b, get),
    runningOrigin: undefined,
    components: new Set(['api']),
    notices: [],
    ownImage: 'registry.test/team/shop:b1',
    now: NOW,
    ...more,
  };
}

const reasonOf = (f: PromotionFacts) => {
  const d = decidePromotion(f);
  return `${d.phase}/${d.ready.reason}: ${d.ready.message}`;
};

describe('a promotion', () => {
  it('with no gates rolls out at once', () => {
    expect(decidePromotion(facts())).toMatchObject({ phase: 'Promoting', promote: true });
  });

  it("takes promotions only from its target's spec.promoteFrom", () => {
    const to = environment('production', stored(), spec({ promoteFrom: { environmentRef: { name: 'qa' } } }));
    expect(reasonOf(facts({ to }))).toBe(
      'Failed/SourceNotAllowed: Environment production takes promotions from qa only (its spec.promoteFrom), not from staging',
    );
  });

  it('fails when the target already runs an image built after it', () => {
    const newer = ran('b2', 'staging', 100, at(160));
    expect(reasonOf(facts({ bundles: [ran('b1', 'staging', 0, at(60)), newer], runningOrigin: newer }))).toBe(
      "Failed/Superseded: production already runs an image built by bundle b2, newer than b1's",
    );
  });

  it('fails when the source was rolled back from it, or replaced before it soaked', () => {
    const b1 = ran('b1', 'staging', 0, at(60));
    const back = ran('b0-rollback', 'staging', 120, at(180), 'Rollback');
    expect(reasonOf(facts({ bundles: [b1, back] }))).toBe(
      'Failed/ReplacedOnSource: staging was rolled back from bundle b1 (bundle b0-rollback): it is not promoted',
    );
    const soaking = promotion(
      'release-1',
      stored(),
      spec({ bundleRef: { name: 'b1' }, gates: { soakMinutes: 60 } }),
    );
    expect(reasonOf(facts({ promotion: soaking, bundles: [b1, ran('b2', 'staging', 120, at(180))] }))).toBe(
      'Failed/ReplacedOnSource: ran only 2 min on staging before bundle b2 replaced it (soakMinutes 60)',
    );
  });

  it('waits for a component the gates name that does not exist, and for a bundle still on its way', () => {
    const typo = promotion(
      'release-1',
      stored(),
      spec({ bundleRef: { name: 'b1' }, gates: { noOpenIncident: true, components: [{ name: 'apii' }] } }),
    );
    expect(reasonOf(facts({ promotion: typo }))).toBe(
      'Waiting/ComponentNotFound: StatusComponent apii (gates.components) does not exist in this namespace',
    );
    const building = bundle(
      'b1',
      stored(),
      spec({ deploy: deployTo('staging') }),
      status({ phase: 'Building' }),
    );
    expect(reasonOf(facts({ bundles: [building] }))).toBe(
      'Waiting/BundleNotDeployed: bundle b1 is still on its way to staging',
    );
  });

  it('fails when its rollout bundle was deleted before it finished', () => {
    expect(
      reasonOf(
        facts({
          rolloutGone: true,
          promotion: promotion('release-1', stored(), status({ rolloutBundle: 'shop-0123456789ab' })),
        }),
      ),
    ).toBe('Failed/RolloutFailed: bundle shop-0123456789ab was deleted before it finished');
  });
});
