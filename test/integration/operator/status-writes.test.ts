// Status writes carry the resourceVersion they were decided on (operator/reconcile/status-writer.ts),
// on a real API server: a former leader that decided on an old copy of a bundle cannot overwrite
// what the new leader wrote since, while one writer's own consecutive writes never conflict.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BundleObject } from '../../../crds/index.ts';
import { EventRecorder } from '../../../lib/events.ts';
import { isConflict, kubeClients, slipwayApi } from '../../../lib/kube.ts';
import { logger } from '../../../lib/log.ts';
import { StatusWriter } from '../../../operator/reconcile/status-writer.ts';
import * as build from '../../support/builders.ts';
import { createNamespace, controllerKubeConfig } from '../../support/cluster.ts';

// The status writer is Slipway's own: it acts as Slipway's identity (the slipway-writers policy).
const kc = controllerKubeConfig();
const api = slipwayApi(kc);
const log = logger.child({ test: 'status-writes' });
let ns: { name: string; remove: () => Promise<void> };

const writer = () => {
  const events = new EventRecorder(kubeClients(kc).events, 'slipway.dev/operator', 'test', log);
  return new StatusWriter({ slipway: api, events, now: () => new Date() });
};
const ready = (reason: string) => ({
  type: 'Ready',
  status: 'Unknown' as const,
  reason,
  message: `step ${reason}`,
});

beforeAll(async () => {
  ns = await createNamespace(kc, 'status-writes');
});
afterAll(async () => ns.remove());

describe('status writes', () => {
  it("refuses a former leader's late write decided on an older version, and keeps the newer status", async () => {
    const created = await api.create<BundleObject>('Bundle', {
      ...build.bundle('shop-1', build.inNamespace(ns.name)),
    } as BundleObject & Record<string, unknown>);
    // Both replicas read the bundle at the same version; the new leader writes first.
    const newLeader = writer();
    const formerLeader = writer();
    await newLeader.write('Bundle', created, {
      writer: 'bundle',
      fields: { phase: 'Building' },
      conditions: [ready('Building')],
    });

    const late = formerLeader.write('Bundle', created, {
      writer: 'bundle',
      fields: { phase: 'Queued' },
      conditions: [ready('Queued')],
    });
    const refused = await late.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isConflict(refused)).toBe(true);
    const now = await api.get<BundleObject>('Bundle', ns.name, 'shop-1');
    expect(now.status?.phase).toBe('Building');

    // Retried on the version it now reads, the same decision is written.
    await formerLeader.write('Bundle', now, {
      writer: 'bundle',
      fields: { phase: 'Queued' },
      conditions: [ready('Queued')],
    });
    expect((await api.get<BundleObject>('Bundle', ns.name, 'shop-1')).status?.phase).toBe('Queued');
  });

  it('lets one writer write again before its cache shows its last write', async () => {
    const created = await api.create<BundleObject>('Bundle', {
      ...build.bundle('shop-2', build.inNamespace(ns.name)),
    } as BundleObject & Record<string, unknown>);
    const leader = writer();
    // The cache still shows `created` after each write: the writer's own version is used.
    await leader.write('Bundle', created, {
      writer: 'bundle',
      fields: { phase: 'Queued' },
      conditions: [ready('Queued')],
    });
    await leader.write('Bundle', created, {
      writer: 'bundle',
      fields: { phase: 'Building' },
      conditions: [ready('Building')],
    });
    await leader.write('Bundle', created, {
      writer: 'bundle',
      fields: { phase: 'Built' },
      conditions: [ready('Built')],
    });
    expect((await api.get<BundleObject>('Bundle', ns.name, 'shop-2')).status?.phase).toBe('Built');
  });
});
