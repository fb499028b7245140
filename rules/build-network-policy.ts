// The NetworkPolicy around every build pod (docs/adr/0004): build steps run the pushed
// repository's code, so a build reaches no more than a build needs. No ingress at all. Egress:
// DNS (the cluster's kube-dns pods), the internet but the inside ranges (rules/inside-ranges.ts:
// private, link-local with the metadata address, loopback, …, the configured deny ranges and the
// cluster's own ranges the operator reads: Service ranges, pod ranges, node addresses, which may
// be public), and the inside destinations listed (the registry, a git host or a package mirror
// inside), on the ports listed only, with the fixed inside ranges within them cut out. The
// operator is its one owner: it writes it in the build namespace from its settings (the chart's
// operator.buildNetworkPolicy) and the ranges it reads, again whenever they change
// (operator/outbound/build-egress.ts). NetworkPolicies only add up: the chart's deny-all policy
// beside it keeps builds from reaching anything while the operator's is not written yet.
import type { V1NetworkPolicy, V1NetworkPolicyEgressRule } from '@kubernetes/client-node';
import { z } from 'zod';
import { cidrText, parseCidr, strictlyWithin, type Cidr } from './cidr.ts';
import { INSIDE_RANGES } from './inside-ranges.ts';

export const BUILD_NETWORK_POLICY = 'slipway-builds';
/**
 * The deny-all policy beside it, made with the build namespace outside the chart (npm start, the
 * test tiers). The chart makes its own, `<release>-build-isolation`: a name of another owner, so
 * Helm never finds this one in its way (the same policy twice adds nothing).
 */
export const BUILD_ISOLATION_POLICY = 'slipway-builds-deny-all';

/**
 * Every pod of the build namespace isolated, both ways, allowing nothing: what the operator's
 * policy allows adds to it. Without the operator's (not written yet, or its write failed) a
 * build reaches nothing and fails, instead of reaching everything.
 */
export function buildIsolationPolicy(namespace: string, name = BUILD_ISOLATION_POLICY): V1NetworkPolicy {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
  };
}

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

/**
 * NAT64's well-known prefix: an IPv6 address there reaches the IPv4 address inside it, private
 * ones and the metadata address too. Cut out of IPv6 allowances (the outbound guard unwraps it
 * instead, rules/inside-ranges.ts; a NetworkPolicy cannot).
 */
const NAT64 = '64:ff9b::/96';

/** Of `ranges`, those strictly within `range`, each once and none inside another one kept. */
function cutOut(ranges: readonly Cidr[], range: Cidr): string[] {
  const within = ranges.filter((r) => strictlyWithin(r, range));
  const outermost = within.filter((r) => !within.some((o) => strictlyWithin(r, o)));
  return unique(outermost);
}

export function buildNetworkPolicy(
  namespace: string,
  options: BuildNetworkPolicyOptions = {},
): V1NetworkPolicy {
  const fixed = parsed([...INSIDE_RANGES, NAT64, ...(options.deny ?? [])]);
  const learned = parsed(options.clusterRanges ?? []);
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
    // The internet leaves out the cluster's ranges the operator read, public ones too.
    ...(options.internet === false
      ? []
      : [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: cutOut([...fixed, ...learned], internet) } }] }]),
    // An allowance names inside destinations on purpose (an in-cluster registry behind the
    // Service range, a registry on the nodes): only the fixed inside ranges and the deny list
    // within it are cut out (2002::/16 and NAT64 of 2000::/3), not the cluster's ranges.
    ...(options.allow ?? []).map((a): V1NetworkPolicyEgressRule => {
      const range = parseCidr(a.cidr)!;
      const except = cutOut(fixed, range);
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
