// The cluster's own ranges, read from a real API server: its Service range (the ServiceCIDR the
// API server made) and the nodes' pod ranges and addresses, so outbound calls never reach them
// even where they are not private ranges; an identity that may not read them says so, and the
// configured ranges (SLIPWAY_OUTBOUND_DENY) stand in.
import { BlockList } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { CoreV1Api } from '@kubernetes/client-node';
import { impersonating } from '../../../lib/kube.ts';
import { readClusterRanges } from '../../../operator/outbound/cluster-ranges.ts';
import { controllerKubeConfig } from '../../support/cluster.ts';

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
});
