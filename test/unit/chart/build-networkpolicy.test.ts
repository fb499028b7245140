// The NetworkPolicy around build pods has one owner, the operator (rules/build-network-policy.ts,
// operator/bundle/build-egress.ts): the chart renders none, and hands the operator its values as
// SLIPWAY_BUILD_EGRESS, which the operator's configuration takes as they are; an allowance
// without ports (every port of a node: its kubelet, API server, etcd) is refused by the schema.
import { beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../operator/config.ts';
import { buildIsolationPolicy, buildNetworkPolicy } from '../../../rules/build-network-policy.ts';
import {
  HELM_BUILD_TIMEOUT_MS,
  NAMESPACE,
  RELEASE,
  envOf,
  helm,
  ofKind,
  template,
  type Manifest,
} from './helm.ts';

const GATEWAY = {
  namespace: NAMESPACE,
  labels: {
    'app.kubernetes.io/name': 'slipway',
    'app.kubernetes.io/instance': RELEASE,
    'app.kubernetes.io/component': 'gateway',
  },
  port: 8080,
};

/** The operator's SLIPWAY_BUILD_EGRESS as the chart renders it. */
const egressEnv = (manifests: Manifest[]) => envOf(manifests, 'operator', 'SLIPWAY_BUILD_EGRESS');

describe('chart: the NetworkPolicy around build pods', () => {
  beforeAll(() => {
    helm();
  }, HELM_BUILD_TIMEOUT_MS);

  it('is not rendered: the operator writes it, from the values the chart hands it, beside the deny-all the chart renders', () => {
    const manifests = template();
    const inBuilds = ofKind(manifests, 'NetworkPolicy').filter(
      (p) => p.metadata.namespace === 'slipway-builds',
    );
    expect(inBuilds.map((p) => p.metadata.name)).toEqual(['slipway-build-isolation']);
    // Allowing nothing: what the operator's allows adds to it; without that one, builds reach nothing.
    expect((inBuilds[0] as unknown as { spec: unknown }).spec).toEqual(
      buildIsolationPolicy('slipway-builds').spec,
    );
    const settings = loadConfig({ SLIPWAY_BUILD_EGRESS: egressEnv(manifests) }).buildEgress!;
    expect(settings).toEqual({ internet: true, allow: [], gateway: GATEWAY });
    expect(buildNetworkPolicy('slipway-builds', settings).spec!.egress!.at(-1)).toEqual({
      to: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': NAMESPACE } },
          podSelector: { matchLabels: GATEWAY.labels },
        },
      ],
      ports: [{ protocol: 'TCP', port: 8080 }],
    });
  });

  it('hands over the inside destinations listed, and the internet switch', () => {
    const manifests = template({
      'operator.buildNetworkPolicy.internet': false,
      'operator.buildNetworkPolicy.allow[0].cidr': '10.20.0.15/32',
      'operator.buildNetworkPolicy.allow[0].ports[0].port': 5000,
      'operator.buildNetworkPolicy.allow[1].cidr': '172.30.255.1/32',
      'operator.buildNetworkPolicy.allow[1].ports[0].port': 20100,
      'operator.buildNetworkPolicy.allow[1].ports[0].endPort': 20199,
      'operator.buildNetworkPolicy.allow[1].ports[1].port': 53,
      'operator.buildNetworkPolicy.allow[1].ports[1].protocol': 'UDP',
    });
    expect(loadConfig({ SLIPWAY_BUILD_EGRESS: egressEnv(manifests) }).buildEgress).toEqual({
      internet: false,
      allow: [
        { cidr: '10.20.0.15/32', ports: [{ port: 5000 }] },
        {
          cidr: '172.30.255.1/32',
          ports: [
            { port: 20100, endPort: 20199 },
            { port: 53, protocol: 'UDP' },
          ],
        },
      ],
      gateway: GATEWAY,
    });
  });

  it('refuses an allowance without ports, naming the field', () => {
    expect(() => template({ 'operator.buildNetworkPolicy.allow[0].cidr': '10.30.0.0/16' })).toThrow(/ports/);
    expect(() =>
      loadConfig({ SLIPWAY_BUILD_EGRESS: JSON.stringify({ allow: [{ cidr: '10.30.0.0/16', ports: [] }] }) }),
    ).toThrow(/allow\.0\.ports: name the ports builds need there/);
  });

  it('tells the operator to write none when turned off', () => {
    const manifests = template({ 'operator.buildNetworkPolicy.enabled': false });
    expect(egressEnv(manifests)).toBe('off');
    expect(ofKind(manifests, 'NetworkPolicy')).toEqual([]);
    expect(loadConfig({ SLIPWAY_BUILD_EGRESS: 'off' }).buildEgress).toBeUndefined();
  });
});
