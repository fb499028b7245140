// The chart's NetworkPolicy around build pods is the one rules/build-network-policy.ts makes
// (npm start and the test tiers apply that one): the same rules, for the same values.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { buildNetworkPolicy } from '../../../rules/build-network-policy.ts';
import { HELM_BUILD_TIMEOUT_MS, NAMESPACE, RELEASE, helm, named, ofKind, template } from './helm.ts';

const GATEWAY = {
  namespace: NAMESPACE,
  labels: {
    'app.kubernetes.io/name': 'slipway',
    'app.kubernetes.io/instance': RELEASE,
    'app.kubernetes.io/component': 'gateway',
  },
  port: 8080,
};

describe('chart: the NetworkPolicy around build pods', () => {
  beforeAll(() => {
    helm();
  }, HELM_BUILD_TIMEOUT_MS);

  it('is rendered in the build namespace by default, as rules/build-network-policy.ts makes it', () => {
    const policy = named(template(), 'NetworkPolicy', 'slipway-build-egress');
    const expected = buildNetworkPolicy('slipway-builds', { gateway: GATEWAY });
    expect(policy.metadata.namespace).toBe('slipway-builds');
    expect(policy.spec).toEqual(expected.spec);
  });

  it('lets builds reach the inside destinations listed, and leaves the cluster ranges named out of the internet', () => {
    const policy = named(
      template({
        'operator.buildNamespace': 'builds',
        'operator.buildNetworkPolicy.allow[0].cidr': '10.20.0.15/32',
        'operator.buildNetworkPolicy.allow[0].ports[0].port': 5000,
        'operator.buildNetworkPolicy.allow[1].cidr': '10.30.0.0/16',
        'operator.buildNetworkPolicy.allow[2].cidr': '172.30.255.1/32',
        'operator.buildNetworkPolicy.allow[2].ports[0].port': 10251,
        'operator.buildNetworkPolicy.allow[2].ports[0].endPort': 65535,
        'operator.buildNetworkPolicy.allow[2].ports[1].port': 53,
        'operator.buildNetworkPolicy.allow[2].ports[1].protocol': 'UDP',
        'operator.outbound.denyCidrs[0]': '34.118.224.0/20',
      }),
      'NetworkPolicy',
      'slipway-build-egress',
    );
    const expected = buildNetworkPolicy('builds', {
      allow: [
        { cidr: '10.20.0.15/32', ports: [{ port: 5000 }] },
        { cidr: '10.30.0.0/16' },
        {
          cidr: '172.30.255.1/32',
          ports: [
            { port: 10251, endPort: 65535 },
            { port: 53, protocol: 'UDP' },
          ],
        },
      ],
      deny: ['34.118.224.0/20'],
      gateway: GATEWAY,
    });
    expect(policy.metadata.namespace).toBe('builds');
    expect(policy.spec).toEqual(expected.spec);
  });

  it('never lets builds reach the metadata address, private ranges or loopback, and takes no ingress', () => {
    const spec = buildNetworkPolicy('slipway-builds').spec!;
    expect(spec.ingress).toEqual([]);
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    const internet = spec.egress!.find((r) => r.to?.[0]?.ipBlock?.cidr === '0.0.0.0/0')!;
    expect(internet.to![0]!.ipBlock!.except).toEqual(
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

  it('keeps builds off the internet when told: DNS, the gateway and the listed mirrors alone', () => {
    const policy = named(
      template({
        'operator.buildNetworkPolicy.internet': false,
        'operator.buildNetworkPolicy.allow[0].cidr': '10.20.0.15/32',
      }),
      'NetworkPolicy',
      'slipway-build-egress',
    );
    const expected = buildNetworkPolicy('slipway-builds', {
      internet: false,
      allow: [{ cidr: '10.20.0.15/32' }],
      gateway: GATEWAY,
    });
    expect(policy.spec).toEqual(expected.spec);
    expect(JSON.stringify(policy.spec)).not.toContain('0.0.0.0/0');
  });

  it('is not rendered when turned off', () => {
    expect(
      ofKind(template({ 'operator.buildNetworkPolicy.enabled': false }), 'NetworkPolicy').map(
        (p) => p.metadata.name,
      ),
    ).not.toContain('slipway-build-egress');
  });
});
