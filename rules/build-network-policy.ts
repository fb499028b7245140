// The NetworkPolicy around every build pod (docs/adr/0004): build steps run the pushed
// repository's code, so a build reaches no more than a build needs. No ingress at all. Egress:
// DNS (the cluster's kube-dns pods), the internet but the inside ranges (rules/inside-ranges.ts:
// private, link-local with the metadata address, loopback, …, and the cluster's own ranges when
// they are public), and only the inside destinations listed (the registry, a git host or a
// package mirror inside, the gateway the build downloads archives from) on their ports.
// The chart renders the same policy (templates/build-networkpolicy.yaml; a unit test compares).
import type { V1NetworkPolicy, V1NetworkPolicyEgressRule } from '@kubernetes/client-node';
import { INSIDE_RANGES } from './inside-ranges.ts';

export const BUILD_NETWORK_POLICY = 'slipway-builds';

/** An inside destination builds may reach: an address range, on these ports (all when none). */
export interface BuildEgress {
  cidr: string;
  ports?: Array<{ port: number; endPort?: number; protocol?: 'TCP' | 'UDP' }>;
}

export interface BuildNetworkPolicyOptions {
  /** Inside destinations builds need (the chart's operator.buildNetworkPolicy.allow). */
  allow?: readonly BuildEgress[];
  /** More ranges that are not the internet: the cluster's when public (operator.outbound.denyCidrs). */
  deny?: readonly string[];
  /**
   * The public internet (package registries, base images): on by default; off, builds reach only
   * DNS, the gateway and what `allow` lists (list your mirrors there).
   */
  internet?: boolean;
  /** The gateway's pods, when builds reach it through its Service (the chart's release). */
  gateway?: { namespace: string; labels: Record<string, string>; port: number };
}

const v6 = (cidr: string) => cidr.includes(':');

export function buildNetworkPolicy(
  namespace: string,
  options: BuildNetworkPolicyOptions = {},
): V1NetworkPolicy {
  const inside = [...INSIDE_RANGES, ...(options.deny ?? [])];
  const egress: V1NetworkPolicyEgressRule[] = [
    {
      to: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
          podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        },
      ],
      ports: [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
      ],
    },
    // IPv4 only: IPv6 egress is denied unless an allowance names it (e.g. 2000::/3).
    ...(options.internet === false
      ? []
      : [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: inside.filter((c) => !v6(c)) } }] }]),
    ...(options.allow ?? []).map((a): V1NetworkPolicyEgressRule => ({
      to: [{ ipBlock: { cidr: a.cidr } }],
      ...(a.ports?.length
        ? {
            ports: a.ports.map((p) => ({
              protocol: p.protocol ?? 'TCP',
              port: p.port,
              ...(p.endPort ? { endPort: p.endPort } : {}),
            })),
          }
        : {}),
    })),
  ];
  if (options.gateway)
    egress.push({
      to: [
        {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': options.gateway.namespace } },
          podSelector: { matchLabels: options.gateway.labels },
        },
      ],
      ports: [{ protocol: 'TCP', port: options.gateway.port }],
    });
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: BUILD_NETWORK_POLICY, namespace },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'], ingress: [], egress },
  };
}

/**
 * A host that serves builds on many ports (the real node: DNS, the registry, git, the gateway)
 * but its kubelet's: every port but 10250.
 */
export function hostButKubelet(address: string): BuildEgress {
  return {
    cidr: `${address}/32`,
    ports: [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 1, endPort: 10249 },
      { protocol: 'TCP', port: 10251, endPort: 65535 },
    ],
  };
}
