// Leader election through a real Lease: one leader among candidates, a clean hand-over on
// release, and a take-over once a silent leader's lease has expired.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CoordinationV1Api, V1MicroTime, type KubeConfig } from '@kubernetes/client-node';
import { LeaderElector } from '../../../lib/leader.ts';
import { createNamespace, testKubeConfig, waitFor } from '../../support/cluster.ts';
import { quietLog } from './support.ts';

let kc: KubeConfig;
let ns: { name: string; remove: () => Promise<void> };
const electors: LeaderElector[] = [];

function candidate(identity: string, lease: string, events: string[]): LeaderElector {
  const e = new LeaderElector({
    api: kc.makeApiClient(CoordinationV1Api),
    namespace: ns.name,
    name: lease,
    identity,
    leaseDurationMs: 3000,
    renewDeadlineMs: 2000,
    retryPeriodMs: 300,
    log: quietLog,
    onStartedLeading: () => events.push(`${identity} started`),
    onStoppedLeading: () => events.push(`${identity} stopped`),
  });
  electors.push(e);
  return e;
}

beforeAll(async () => {
  kc = testKubeConfig();
  ns = await createNamespace(kc, 'op-leader');
});

afterAll(async () => {
  for (const e of electors) await e.stop();
  await ns?.remove();
});

describe('leader election', () => {
  it('elects exactly one of two candidates and hands over at once when the leader releases', async () => {
    const events: string[] = [];
    const a = candidate('a', 'handover', events);
    const b = candidate('b', 'handover', events);
    a.start();
    b.start();
    const leader = await waitFor('a leader', () => (a.isLeader() ? a : b.isLeader() ? b : undefined));
    const follower = leader === a ? b : a;
    // Through three renewals, the same holder and no second leader.
    const renewals = new Set<string>();
    await waitFor('three renewals', async () => {
      const lease = await kc
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ name: 'handover', namespace: ns.name });
      expect(lease.spec?.holderIdentity).toBe(leader === a ? 'a' : 'b');
      expect(follower.isLeader()).toBe(false);
      renewals.add(String(lease.spec?.renewTime));
      return renewals.size >= 3;
    });
    expect(events).toEqual([`${leader === a ? 'a' : 'b'} started`]);

    const released = Date.now();
    await leader.stop();
    await waitFor('the follower to lead', () => follower.isLeader());
    // A released lease is taken without waiting for the 3 s lease duration.
    expect(Date.now() - released).toBeLessThan(2500);
    const lease = await kc
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: 'handover', namespace: ns.name });
    expect(lease.spec?.holderIdentity).toBe(follower === a ? 'a' : 'b');
    expect(lease.spec?.leaseTransitions).toBe(1);
  });

  it('takes over from a leader that went silent once its lease expired', async () => {
    const events: string[] = [];
    const api = kc.makeApiClient(CoordinationV1Api);
    // A leader that vanished without releasing (as after kill -9): its record stays as it was.
    const now = new V1MicroTime(Date.now());
    await api.createNamespacedLease({
      namespace: ns.name,
      body: {
        metadata: { name: 'silent' },
        spec: {
          holderIdentity: 'gone',
          leaseDurationSeconds: 2,
          renewTime: now,
          acquireTime: now,
          leaseTransitions: 4,
        },
      },
    });
    const c = candidate('c', 'silent', events);
    const started = Date.now();
    c.start();
    await waitFor('c to lead', () => c.isLeader(), 10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    const lease = await api.readNamespacedLease({ name: 'silent', namespace: ns.name });
    expect(lease.spec).toMatchObject({ holderIdentity: 'c', leaseTransitions: 5 });
  });
});
