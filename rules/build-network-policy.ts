// The NetworkPolicy around every build pod (docs/adr/0004): build steps run the pushed
// repository's code, so a build reaches no more than a build needs. No ingress at all. Egress:
// DNS (the cluster's kube-dns pods), the internet but the inside ranges (rules/inside-ranges.ts:
// private, link-local with the metadata address, loopback, …, the configured deny ranges and the
// cluster's own ranges the operator reads: Service ranges, pod ranges, node addresses, which may
// be public), and the inside destinations listed (the registry, a git host or a package mirror
// inside), on the ports listed only, with the inside ranges within them cut out again. The
// operator is its one owner: it writes it in the build namespace from its settings (the chart's
// operator.buildNetworkPolicy) and the ranges it reads, again whenever they change
// (operator/bundle/build-egress.ts). NetworkPolicies only add up, so there is no second one.
import type { V1NetworkPolicy, V1NetworkPolicyEgressRule } from '@kubernetes/client-node';
import { z } from 'zod';
import { cidrText, parseCidr, strictlyWithin, type Cidr } from './cidr.ts';
import { INSIDE_RANGES } from './inside-ranges.ts';

export const BUILD_NETWORK_POLICY = 'slipway-builds';

const port = z.number().int().min(1).max(65_535);

/** An inside destination builds may reach: an address range, on these ports (at least one). */
export const buildEgress = z.object({
  cidr: z.string().refine((c) => parseCidr(c) !== undefined, 'not an address range'),
  ports: z
    .array(
      z
        .object({ port, endPort: port.optional(), protocol: z.enum(['TCP', 'UDP']).optional() })
        .refine((p) => p.endPort === undefined || p.endPort >= p.port, 'endPort is below port'),
    )
    .min(
      1,
      'name the ports builds need there: an allowance of every port opens the kubelet and the API server',
    ),
});
export type BuildEgress = z.infer<typeof buildEgress>;

/** The settings the operator writes the policy from (SLIPWAY_BUILD_EGRESS, the chart's values). */
export const buildEgressSettings = z.object({
  /**
   * The public internet (package registries, base images): on by default; off, builds reach only
   * DNS, the gateway and what `allow` lists (list your mirrors there).
   */
  internet: z.boolean().default(true),
  /** Inside destinations builds need (the chart's operator.buildNetworkPolicy.allow). */
  allow: z.array(buildEgress).default([]),
  /** The gateway's pods, when builds reach it through its Service (the chart's release). */
  gateway: z.object({ namespace: z.string(), labels: z.record(z.string(), z.string()), port }).optional(),
});
export type BuildEgressSettings = z.infer<typeof buildEgressSettings>;

export interface BuildNetworkPolicyOptions extends Partial<BuildEgressSettings> {
  /** More ranges that are not the internet (operator.outbound.denyCidrs). */
  deny?: readonly string[];
  /** The cluster's own ranges, as the operator reads them (ServiceCIDRs, pod ranges, node addresses). */
  clusterRanges?: readonly string[];
}

const parsed = (texts: readonly string[]) =>
  texts.map((t) => parseCidr(t)).filter((c): c is Cidr => c !== undefined);

/** The canonical text of each range, once, in the order first seen. */
const unique = (ranges: readonly Cidr[]) => [...new Set(ranges.map(cidrText))];

export function buildNetworkPolicy(
  namespace: string,
  options: BuildNetworkPolicyOptions = {},
): V1NetworkPolicy {
  const inside = parsed([...INSIDE_RANGES, ...(options.deny ?? []), ...(options.clusterRanges ?? [])]);
  // What is inside and lies within `range`: cut out of it (except must lie strictly within).
  const insideOf = (range: Cidr) => unique(inside.filter((r) => strictlyWithin(r, range)));
  const internet = parseCidr('0.0.0.0/0')!;
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
      : [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: insideOf(internet) } }] }]),
    ...(options.allow ?? []).map((a): V1NetworkPolicyEgressRule => {
      const range = parseCidr(a.cidr)!;
      const except = insideOf(range);
      return {
        to: [{ ipBlock: { cidr: cidrText(range), ...(except.length ? { except } : {}) } }],
        ports: a.ports.map((p) => ({
          protocol: p.protocol ?? 'TCP',
          port: p.port,
          ...(p.endPort ? { endPort: p.endPort } : {}),
        })),
      };
    }),
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
    metadata: {
      name: BUILD_NETWORK_POLICY,
      namespace,
      labels: { 'app.kubernetes.io/managed-by': 'slipway' },
    },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'], ingress: [], egress },
  };
}

/**
 * A host that serves builds (the real node: its DNS, registry, ingress and the test services):
 * these TCP ports and DNS, nothing else (not the kubelet, the API server or etcd).
 */
export function hostServices(
  address: string,
  tcpPorts: ReadonlyArray<number | [number, number]>,
): BuildEgress {
  return {
    cidr: `${address}/32`,
    ports: [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
      ...tcpPorts.map((p) =>
        Array.isArray(p)
          ? { protocol: 'TCP' as const, port: p[0], endPort: p[1] }
          : { protocol: 'TCP' as const, port: p },
      ),
    ],
  };
}
