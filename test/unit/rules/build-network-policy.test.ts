// What a build may reach (rules/build-network-policy.ts): DNS, the internet without the inside
// ranges and without the cluster's own ranges the operator reads (a public node address, a
// public Service range), and each inside destination listed only on its ports, with the inside
// ranges within it cut out, IPv6 ones too.
import { describe, expect, it } from '@jest/globals';
import { buildNetworkPolicy, hostServices } from '../../../rules/build-network-policy.ts';
import { cidrText, parseCidr, strictlyWithin } from '../../../rules/cidr.ts';

const egressOf = (options: Parameters<typeof buildNetworkPolicy>[1]) =>
  buildNetworkPolicy('slipway-builds', options).spec!.egress!;
const internetExcept = (options: Parameters<typeof buildNetworkPolicy>[1]) =>
  egressOf(options).find((r) => r.to?.[0]?.ipBlock?.cidr === '0.0.0.0/0')!.to![0]!.ipBlock!.except!;

describe('the NetworkPolicy around builds', () => {
  it('takes no ingress, and leaves the metadata address, private ranges and loopback out of the internet', () => {
    const spec = buildNetworkPolicy('slipway-builds').spec!;
    expect(spec.ingress).toEqual([]);
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(internetExcept({})).toEqual(
      expect.arrayContaining([
        '169.254.0.0/16',
        '10.0.0.0/8',
        '172.16.0.0/12',
        '192.168.0.0/16',
        '127.0.0.0/8',
      ]),
    );
    expect(spec.egress!.every((r) => r.to?.length)).toBe(true);
  });

  it("cuts the cluster's ranges the operator read out of the internet: a public node address, a public Service range", () => {
    const except = internetExcept({
      clusterRanges: ['203.0.113.7/32', '34.118.224.0/20', '2600:1f14:abc::/56'],
      deny: ['198.51.100.0/24'],
    });
    expect(except).toEqual(expect.arrayContaining(['203.0.113.7/32', '34.118.224.0/20', '198.51.100.0/24']));
    // IPv6 is not in the internet rule (denied unless allowed), so not in its except list.
    expect(except.some((c) => c.includes(':'))).toBe(false);
  });

  it('opens an inside destination on its ports only', () => {
    const [, , host] = egressOf({ allow: [hostServices('172.30.255.1', [5000, 80, [20100, 20199]])] });
    expect(host).toEqual({
      to: [{ ipBlock: { cidr: '172.30.255.1/32' } }],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
        { protocol: 'TCP', port: 5000 },
        { protocol: 'TCP', port: 80 },
        { protocol: 'TCP', port: 20100, endPort: 20199 },
      ],
    });
    // Not the kubelet (10250), the API server (6443) nor etcd (2379).
    const open = (port: number) =>
      host!.ports!.some(
        (p) => p.port === port || (p.endPort !== undefined && Number(p.port) <= port && port <= p.endPort),
      );
    expect([10250, 10255, 6443, 2379].filter(open)).toEqual([]);
  });

  it('cuts the fixed inside ranges within an allowance out of it, IPv6 and NAT64 too, but not the cluster ranges it names on purpose', () => {
    const egress = egressOf({
      internet: false,
      allow: [
        { cidr: '2000::/3', ports: [{ port: 443 }] },
        { cidr: '::/0', ports: [{ port: 443 }] },
        { cidr: '10.0.0.0/8', ports: [{ port: 3128 }] },
        { cidr: '10.20.0.15', ports: [{ port: 5000 }] },
      ],
      deny: ['10.30.0.0/16'],
      clusterRanges: ['2600:1f14:abc::/56', '10.96.0.0/12', '10.20.0.15/32'],
    });
    const blocks = egress.slice(1).map((r) => r.to![0]!.ipBlock);
    expect(blocks[0]).toEqual({ cidr: '2000::/3', except: ['2002::/16'] });
    expect(blocks[1]!.except).toEqual(
      expect.arrayContaining(['64:ff9b::/96', 'fc00::/7', 'fe80::/10', '2002::/16']),
    );
    // An in-cluster registry behind the Service range stays reachable; the deny list does not.
    expect(blocks[2]).toEqual({ cidr: '10.0.0.0/8', except: ['10.30.0.0/16'] });
    expect(blocks[3]).toEqual({ cidr: '10.20.0.15/32' });
  });

  it('keeps no except entry that another one covers', () => {
    const except = internetExcept({
      clusterRanges: ['10.96.0.0/12', '10.0.0.5/32', '203.0.113.0/24', '203.0.113.7/32'],
    });
    expect(except).not.toContain('10.96.0.0/12');
    expect(except).not.toContain('203.0.113.7/32');
    expect(except).toContain('203.0.113.0/24');
    expect(new Set(except).size).toBe(except.length);
  });
});

describe('address ranges', () => {
  it('are written by their network address, as a NetworkPolicy takes them', () => {
    expect(cidrText(parseCidr('10.1.2.3/16')!)).toBe('10.1.0.0/16');
    expect(cidrText(parseCidr('10.1.2.3')!)).toBe('10.1.2.3/32');
    expect(cidrText(parseCidr('2600:1f14:abc:1::7/56')!)).toBe('2600:1f14:abc::/56');
    expect(cidrText(parseCidr('::ffff:10.0.0.1/128')!)).toBe('::ffff:a00:1/128');
    // A zone is no range.
    expect(parseCidr('fe80::1%eth0')).toBeUndefined();
  });

  it('lie strictly within another only when smaller and inside it', () => {
    const c = (t: string) => parseCidr(t)!;
    expect(strictlyWithin(c('10.96.0.0/12'), c('10.0.0.0/8'))).toBe(true);
    expect(strictlyWithin(c('10.0.0.0/8'), c('10.0.0.0/8'))).toBe(false);
    expect(strictlyWithin(c('11.0.0.0/16'), c('10.0.0.0/8'))).toBe(false);
    expect(strictlyWithin(c('fc00::/7'), c('2000::/3'))).toBe(false);
    expect(strictlyWithin(c('10.0.0.1/32'), c('::/0'))).toBe(false);
  });
});
