// Sharding's pure parts: the selector from the flag, the Lease and Role names each shard gets,
// and the shard label carried from a Project to its bundles, their Jobs and rollouts.
import { describe, expect, it } from '@jest/globals';
import { LABEL_SHARD } from '../../../crds/labels.ts';
import { rolloutPatch } from '../../../operator/bundle/rollout.ts';
import { loadConfig } from '../../../operator/config.ts';
import { watchLabelSelectorArg } from '../../../operator/shard.ts';
import { gatewayAccessName } from '../../../operator/project/gateway-access.ts';
import { jobLabels } from '../../../operator/names.ts';
import { inShard } from '../../../operator/shard.ts';
import { newBundle } from '../../../rules/new-bundle.ts';
import { rollbackBundle } from '../../../rules/rollback.ts';

describe('operator shards', () => {
  it('takes the selector from --watch-label-selector, in either form', () => {
    expect(watchLabelSelectorArg(['--watch-label-selector=slipway.dev/shard in (a)'])).toBe(
      'slipway.dev/shard in (a)',
    );
    expect(watchLabelSelectorArg(['--watch-label-selector', '!slipway.dev/shard'])).toBe(
      '!slipway.dev/shard',
    );
    expect(watchLabelSelectorArg([])).toBeUndefined();
  });

  it('acts for the Projects its selector picks, and refuses a selector it cannot read', () => {
    const project = (shard?: string) => ({
      metadata: { labels: (shard ? { [LABEL_SHARD]: shard } : {}) as Record<string, string> },
    });
    const config = (selector?: string) => ({
      config: loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: selector }),
    });
    expect(inShard(config(), project('a'))).toBe(true);
    expect(inShard(config('!slipway.dev/shard'), project())).toBe(true);
    expect(inShard(config('!slipway.dev/shard'), project('a'))).toBe(false);
    expect(inShard(config('slipway.dev/shard in (a)'), project('a'))).toBe(true);
    expect(inShard(config('slipway.dev/shard in (a)'), project('b'))).toBe(false);
    expect(() => loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: 'slipway.dev/shard in a' })).toThrow(
      /not a shard selector/,
    );
    // Bundles carry only the shard label: another key would select Projects but none of their bundles.
    expect(() => loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: 'team=x' })).toThrow(/not a shard selector/);
  });

  it('names its Lease and its gateway Role after its selector, unless told a Lease name', () => {
    expect(loadConfig({}).leaseName).toBe('slipway-operator');
    const a = loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: 'slipway.dev/shard in (a)' });
    expect(a.leaseName).toBe('slipway-operator-a');
    expect(loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: 'slipway.dev/shard=b' }).leaseName).toBe(
      'slipway-operator-b',
    );
    // The default shard shares the unsharded operator's Lease: the two never act at once.
    expect(loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: '!slipway.dev/shard' }).leaseName).toBe(
      'slipway-operator',
    );
    expect(loadConfig({ SLIPWAY_WATCH_LABEL_SELECTOR: 'slipway.dev/shard in (a,b)' }).leaseName).toBe(
      'slipway-operator-slipway-dev-shard-in-a-b',
    );
    expect(
      loadConfig({
        SLIPWAY_WATCH_LABEL_SELECTOR: 'slipway.dev/shard in (a)',
        SLIPWAY_LEASE_NAME: 'r-operator-a',
      }).leaseName,
    ).toBe('r-operator-a');
    expect(gatewayAccessName(undefined)).toBe('slipway-gateway-webhook-secrets');
    expect(gatewayAccessName('slipway.dev/shard in (a)')).toBe('slipway-gateway-webhook-secrets-a');
    expect(gatewayAccessName('!slipway.dev/shard')).toBe('slipway-gateway-webhook-secrets');
    expect(gatewayAccessName(`slipway.dev/shard in (${'x'.repeat(80)})`).length).toBeLessThanOrEqual(63);
  });

  it("carries a Project's shard to its bundles and rollbacks, their Jobs and their rollouts' pods", () => {
    const bundle = newBundle({
      name: 'shop-1',
      namespace: 'ns',
      project: { name: 'shop', uid: 'u1', shard: 'a' },
      source: { git: { commit: 'a'.repeat(40) } },
      trigger: { type: 'Manual' },
      comment: '',
    });
    expect(bundle.metadata.labels?.[LABEL_SHARD]).toBe('a');
    const unsharded = newBundle({
      ...{ name: 'shop-2', namespace: 'ns', project: { name: 'shop' } },
      source: bundle.spec.source,
      trigger: { type: 'Manual' },
      comment: '',
    });
    expect(unsharded.metadata.labels).not.toHaveProperty(LABEL_SHARD);
    const rollback = rollbackBundle({
      namespace: 'ns',
      project: 'shop',
      projectUid: 'u1',
      projectShard: 'a',
      to: 'shop-1',
      environment: 'prod',
    });
    expect(rollback.metadata.labels?.[LABEL_SHARD]).toBe('a');
    expect(jobLabels('shop', 'shop-1', 'build', bundle.metadata.labels)[LABEL_SHARD]).toBe('a');
    expect(jobLabels('shop', 'shop-2', 'build', unsharded.metadata.labels)).not.toHaveProperty(LABEL_SHARD);
    const patch = rolloutPatch({
      bundle,
      deployment: { metadata: { name: 'web', resourceVersion: '7' } },
      container: 'web',
      image: 'registry/ns/shop@sha256:' + '0'.repeat(64),
      startedAt: new Date(0),
      registry: 'registry',
    }) as { spec: { template: { metadata: { labels: Record<string, string> } } } };
    expect(patch.spec.template.metadata.labels[LABEL_SHARD]).toBe('a');
  });
});
