// The rollout's apply configuration: only what Slipway owns on the environment's Deployment.
import { describe, expect, it } from '@jest/globals';
import { rolloutPatch } from '../../../../operator/bundle/rollout.ts';
import { bundle, stored } from '../../../support/builders.ts';

const IMAGE = `registry.slipway.test:5000/shop/shop:new@sha256:${'1'.repeat(64)}`;
const OLD = `registry.slipway.test:5000/shop/shop:old@sha256:${'2'.repeat(64)}`;

const patchOf = (containers: Array<{ name: string; image: string }>, container = 'web') =>
  rolloutPatch({
    bundle: bundle('shop-2', stored()),
    deployment: {
      metadata: { name: 'shop-web', resourceVersion: '42' },
      spec: { selector: {}, template: { spec: { containers } } },
    },
    container,
    image: IMAGE,
    startedAt: new Date('2026-11-28T12:00:00Z'),
    registry: 'registry.slipway.test:5000',
  }) as {
    apiVersion: string;
    kind: string;
    metadata: Record<string, unknown>;
    spec: { template: { spec: { containers: unknown[] }; metadata: { labels: Record<string, string> } } };
  };

describe('the rollout apply', () => {
  it('names the Deployment, the image of its container, and Slipway’s annotations and label: nothing else', () => {
    const patch = patchOf([{ name: 'web', image: 'base:1' }]);
    expect(patch).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(patch.metadata).toMatchObject({ name: 'shop-web', resourceVersion: '42' });
    expect(Object.keys(patch.spec)).toEqual(['template']);
    expect(patch.spec.template.spec.containers).toEqual([{ name: 'web', image: IMAGE }]);
    expect(patch.spec.template.metadata.labels).toEqual({ 'slipway.dev/bundle': 'shop-2' });
  });

  it('keeps naming a container that runs an image Slipway built (the environment moved to another), never a sidecar', () => {
    const patch = patchOf(
      [
        { name: 'app', image: OLD },
        { name: 'proxy', image: 'envoyproxy/envoy:v1.31' },
        { name: 'web', image: 'base:1' },
      ],
      'web',
    );
    expect(patch.spec.template.spec.containers).toEqual([
      { name: 'web', image: IMAGE },
      { name: 'app', image: OLD },
    ]);
  });
});
