// Which addresses an outbound call (a commit status, a notification, a subscriber webhook) may
// connect to. Their URLs come from what tenants write, so without a check a tenant could aim the
// operator at the cluster's inside — the metadata service, the kubelet, another team's pods —
// and read the answers back in a condition. The address is checked after DNS, the one actually
// connected to (guarded-fetch.ts), so a name that resolves inside is refused like the address.
import { BlockList, isIP } from 'node:net';
import { parseCidr, type Cidr } from '../../rules/cidr.ts';
import { INSIDE_RANGES } from '../../rules/inside-ranges.ts';

function blockList(ranges: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const r of ranges) list.addSubnet(r.address, r.prefix, r.family);
  return list;
}

/**
 * An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, NAT64 `64:ff9b::a00:1`) is checked as the
 * IPv4 address it reaches.
 */
export function embeddedIpv4(address: string): string | undefined {
  const normal = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const match = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(normal);
  if (!match) return undefined;
  const [high, low] = [parseInt(match[1]!, 16), parseInt(match[2]!, 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * Why an address is refused. Fixed, never the address itself: a tenant reads it in a condition,
 * and must not learn from it what a name resolves to inside the cluster.
 */
export const INSIDE = "an address inside (loopback, link-local, private, or the cluster's ranges)";

export class AddressGuard {
  #inside: BlockList;
  readonly #allowed: BlockList;
  readonly #deny: readonly Cidr[];
  readonly allow: readonly Cidr[];

  /** `deny`: more ranges (a cluster's pod or Service range outside the private ones); `allow`: exceptions. */
  constructor(options: { allow?: readonly Cidr[]; deny?: readonly Cidr[] } = {}) {
    this.allow = options.allow ?? [];
    this.#deny = [...INSIDE_RANGES.map((r) => parseCidr(r)!), ...(options.deny ?? [])];
    this.#inside = blockList(this.#deny);
    this.#allowed = blockList(this.allow);
  }

  /** The cluster's own ranges as last read (cluster-ranges.ts), refused beside the others. */
  setClusterRanges(ranges: readonly Cidr[]): void {
    this.#inside = blockList([...this.#deny, ...ranges]);
  }

  /** Why `address` (an IP) may not be connected to, or undefined when it may. */
  refusal(address: string): string | undefined {
    const version = isIP(address);
    if (version === 0) return 'not an IP address';
    const family: Cidr['family'] = version === 4 ? 'ipv4' : 'ipv6';
    const v4 = version === 6 ? embeddedIpv4(address) : undefined;
    const [checked, checkedFamily]: [string, Cidr['family']] = v4 ? [v4, 'ipv4'] : [address, family];
    if (this.#allowed.check(checked, checkedFamily) || this.#allowed.check(address, family)) return undefined;
    if (this.#inside.check(checked, checkedFamily)) return INSIDE;
    return undefined;
  }
}

/** The error a refused address fails a call with: no socket was opened. */
export class AddressRefused extends Error {
  readonly code = 'ADDRESS_REFUSED';
  constructor(host: string, why: string) {
    super(
      `refused to connect to ${host}: ${why}; Slipway calls only public addresses unless ` +
        'SLIPWAY_OUTBOUND_ALLOW (chart: operator.outbound.allowCidrs) names the range',
    );
  }
}
