// The limits of a project's previews, on a real API server with the operator on a fake clock:
// maxPreviews (more wait, and take a slot, oldest first, when one goes) and idleHours (a preview
// with no push for that long is removed). Previews are made as the gateway makes them.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { KubeConfig } from '@kubernetes/client-node';
import type { PreviewObject } from '../../../crds/index.ts';
import { slipwayApi } from '../../../lib/kube.ts';
import type { Operator } from '../../../operator/operator.ts';
import { bundle, inNamespace, preview, spec } from '../../support/builders.ts';
import { controllerKubeConfig, testKubeConfig, waitFor } from '../../support/cluster.ts';
import {
  clients,
  createEnvironment,
  projectNamespace,
  startOperator,
  type TestNamespace,
} from './support.ts';

let kc: KubeConfig;
let ns: TestNamespace;
let operator: Operator;
let now = new Date('2026-11-28T10:00:00Z');
const HOUR = 3_600_000;
/** As Slipway (the gateway makes Previews). */
const asSlipway = () => slipwayApi(controllerKubeConfig());
const get = (name: string) => clients(kc).slipway.get<PreviewObject>('Preview', ns.name, name);
const reason = (p: PreviewObject) => p.status?.conditions?.find((c) => c.type === 'Ready')?.reason;
const inState = (name: string, want: string) =>
  waitFor(`preview ${name} to say ${want}`, async () => {
    const p = await get(name);
    return reason(p) === want ? p : undefined;
  });
const gone = (name: string) =>
  waitFor(`preview ${name} to go`, () =>
    get(name).then(
      () => undefined,
      (err: { code?: number }) => (err.code === 404 ? true : Promise.reject(err)),
    ),
  );
/** A change that makes the operator look again (as any delivery would). */
const touch = (name: string) =>
  asSlipway().patch('Preview', ns.name, name, { metadata: { annotations: { touched: String(Date.now()) } } });

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await projectNamespace(kc, 'op-previews', {
    previews: { environmentRef: { name: 'staging' }, host: 'pr-{number}.test', maxPreviews: 1, idleHours: 2 },
  });
  await createEnvironment(kc, ns.name, 'staging', { deployment: 'shop-web', engine: 'mysql' });
  await clients(kc).slipway.create('Bundle', bundle('shop-manual-1', inNamespace(ns.name)));
  operator = await startOperator(kc, ns.name, {}, { now: () => now });
});

afterAll(async () => {
  await operator?.stop();
  await ns?.remove();
});

describe('the limits of previews', () => {
  it('maxPreviews: a second pull request waits, saying why, and takes the slot when the first goes', async () => {
    await asSlipway().create('Preview', preview('shop-pr-1', inNamespace(ns.name), spec({ number: 1 })));
    await inState('shop-pr-1', 'ServiceNotFound');
    await asSlipway().create('Preview', preview('shop-pr-2', inNamespace(ns.name), spec({ number: 2 })));
    const waiting = await inState('shop-pr-2', 'MaxPreviewsReached');
    expect(waiting.status?.phase).toBe('Waiting');
    expect(waiting.status?.conditions?.find((c) => c.type === 'Ready')?.message).toContain(
      'spec.previews.maxPreviews',
    );
    await asSlipway().delete('Preview', ns.name, 'shop-pr-1');
    // Its build starts (it waits then for a Service to route to: this namespace has none).
    await inState('shop-pr-2', 'ServiceNotFound');
  });

  it('idleHours: a preview with no push for that long is removed; a push starts the count again', async () => {
    const first = await get('shop-pr-2');
    expect(first.status?.lastPushAt).toBe(now.toISOString());
    expect(first.status?.expiresAt).toBe(new Date(now.getTime() + 2 * HOUR).toISOString());
    now = new Date(now.getTime() + HOUR);
    // A push (a new head commit) one hour in.
    await asSlipway().patch('Preview', ns.name, 'shop-pr-2', { spec: { headCommit: 'c'.repeat(40) } });
    const pushed = await waitFor('the push to be seen', async () => {
      const p = await get('shop-pr-2');
      return p.status?.seenCommit === 'c'.repeat(40) ? p : undefined;
    });
    expect(pushed.status?.expiresAt).toBe(new Date(now.getTime() + 2 * HOUR).toISOString());
    // Two hours after the first look, one after the push: it stays.
    now = new Date(now.getTime() + HOUR);
    const touched = await touch('shop-pr-2');
    // The operator's cache has the change (so its look is queued), and its look is over.
    await waitFor('the operator to see the touch', async () =>
      operator.context.informers.previews.get(ns.name, 'shop-pr-2')?.metadata.resourceVersion ===
      (touched as PreviewObject).metadata.resourceVersion
        ? true
        : undefined,
    );
    await operator.controller('preview').idle();
    expect((await get('shop-pr-2')).metadata.deletionTimestamp).toBeUndefined();
    // Two hours after the push. Any look from now on removes it (a requeue may come before the
    // touch does): the touch only makes sure one comes.
    now = new Date(now.getTime() + HOUR);
    await touch('shop-pr-2').catch((err: { code?: number }) => {
      if (err.code !== 404) throw err;
    });
    await gone('shop-pr-2');
  });
});
