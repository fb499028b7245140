// The cluster's own ranges, read from a real API server: its Service range (the ServiceCIDR the
// API server made) and the nodes' pod ranges and addresses, so outbound calls never reach them
// even where they are not private ranges; an identity that may not read them says so, and the
// configured ranges (SLIPWAY_OUTBOUND_DENY) stand in. The operator writes the NetworkPolicy
// around builds with the same ranges cut out of what a build reaches.
import { BlockList } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { impersonating } from '../../../lib/kube.ts';
import { readClusterRanges } from '../../../operator/outbound/cluster-ranges.ts';
import { BUILD_NETWORK_POLICY } from '../../../rules/build-network-policy.ts';
import { cidrText } from '../../../rules/cidr.ts';
import { controllerKubeConfig, createNamespace, testKubeConfig } from '../../support/cluster.ts';
import { BUILD_NAMESPACE, startOperator } from './support.ts';

describe('cluster ranges', () => {
  it("covers the kubernetes Service's address and every node's address", async () => {
    const kc = controllerKubeConfig();
    const { ranges, unread } = await readClusterRanges(kc);
    expect(unread).toEqual([]);
    const read = new BlockList();
    for (const r of ranges) read.addSubnet(r.address, r.prefix, r.family);
    const core = kc.makeApiClient(CoreV1Api);
    const service = await core.readNamespacedService({ name: 'kubernetes', namespace: 'default' });
    expect(read.check(service.spec!.clusterIP!, 'ipv4')).toBe(true);
    const nodes = await core.listNode();
    expect(nodes.items.length).toBeGreaterThan(0);
    for (const node of nodes.items)
      for (const a of node.status?.addresses ?? [])
        if (a.type === 'InternalIP')
          expect(read.check(a.address, a.address.includes(':') ? 'ipv6' : 'ipv4')).toBe(true);
  });

  it('says what an identity without the rights could not read', async () => {
    const { ranges, unread } = await readClusterRanges(
      impersonating(controllerKubeConfig(), 'nobody-special'),
    );
    expect(ranges).toEqual([]);
    expect(unread).toEqual(['ServiceCIDRs', 'Nodes']);
  });

  it("is cut out of what builds reach: the operator writes the builds' NetworkPolicy with it, and with the allowances' ports", async () => {
    const kc = testKubeConfig();
    const ns = await createNamespace(kc, 'op-egress');
    const networking = kc.makeApiClient(NetworkingV1Api);
    await networking
      .deleteNamespacedNetworkPolicy({ name: BUILD_NETWORK_POLICY, namespace: BUILD_NAMESPACE })
      .catch(() => undefined);
    const operator = await startOperator(kc, ns.name, {
      SLIPWAY_BUILD_EGRESS: JSON.stringify({ allow: [{ cidr: '10.0.0.0/8', ports: [{ port: 5000 }] }] }),
      SLIPWAY_OUTBOUND_DENY: '198.51.100.0/24',
    });
    try {
      // Written before start() resolves: before any build.
      const policy = await networking.readNamespacedNetworkPolicy({
        name: BUILD_NETWORK_POLICY,
        namespace: BUILD_NAMESPACE,
      });
      const { ranges } = await readClusterRanges(controllerKubeConfig());
      const learned = ranges.filter((r) => r.family === 'ipv4').map(cidrText);
      expect(learned.length).toBeGreaterThan(0);
      const [, internet, mirror] = policy.spec!.egress!;
      expect(internet!.to![0]!.ipBlock!.cidr).toBe('0.0.0.0/0');
      // Each range read is left out of the internet (itself, or within a wider one left out).
      const except = new BlockList();
      for (const e of internet!.to![0]!.ipBlock!.except!) {
        const [address, prefix] = e.split('/');
        except.addSubnet(address!, Number(prefix), 'ipv4');
      }
      for (const r of [...learned, '198.51.100.0/24'])
        expect(`${r}: ${except.check(r.split('/')[0]!, 'ipv4')}`).toBe(`${r}: true`);
      // The allowance: its port alone; an inside destination named on purpose stays whole.
      expect(mirror!.ports).toEqual([{ protocol: 'TCP', port: 5000 }]);
      expect(mirror!.to![0]!.ipBlock).toEqual({ cidr: '10.0.0.0/8' });
      expect(policy.metadata!.managedFields?.map((f) => f.manager)).toContain('slipway');
    } finally {
      await operator.stop();
      await ns.remove();
    }
  });
});
