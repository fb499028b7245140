// Which client a request comes from. X-Forwarded-For is a claim anyone can make, so it is only
// believed when the peer is one of our own proxies; then the list is read right to left, past
// every trusted hop, to the first address a trusted proxy saw as its client.
import { BlockList, isIP } from 'node:net';

/** `::ffff:10.0.0.1` (IPv4 seen by an IPv6 socket) is `10.0.0.1`. */
export function normalizeAddress(address: string): string {
  return /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1] ?? address;
}

const familyOf = (address: string): 'ipv4' | 'ipv6' | null => {
  const family = isIP(address);
  return family === 4 ? 'ipv4' : family === 6 ? 'ipv6' : null;
};

/** Trusted proxies from addresses and CIDRs (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`). Throws on a bad entry. */
export function parseTrustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [rawAddress = '', prefix, ...rest] = entry.trim().split('/');
    const address = normalizeAddress(rawAddress);
    const family = familyOf(address);
    const maxBits = family === 'ipv4' ? 32 : 128;
    if (family === null || rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
      throw new Error(`invalid trusted proxy '${entry}': expected an IP address or a CIDR range`);
    }
    if (prefix === undefined) list.addAddress(address, family);
    else if (Number(prefix) <= maxBits) list.addSubnet(address, Number(prefix), family);
    else throw new Error(`invalid trusted proxy '${entry}': prefix longer than ${maxBits} bits`);
  }
  return list;
}

function isTrusted(proxies: BlockList, address: string): boolean {
  const family = familyOf(address);
  return family !== null && proxies.check(address, family);
}

/** `1.2.3.4:567` and `[2001:db8::1]:567` as some proxies write them, without the port. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1] ?? hop;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4WithPort?.[1] ?? hop;
}

export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxies: BlockList | null,
): string {
  let client = normalizeAddress(peer ?? '');
  if (trustedProxies === null || forwardedFor === undefined || !isTrusted(trustedProxies, client)) {
    return client || 'unknown';
  }
  const hops = [forwardedFor].flat().join(',').split(',');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = normalizeAddress(withoutPort((hops[i] ?? '').trim()));
    // A hop that is not an address was not written by a proxy we trust: stop at the last good one.
    if (familyOf(hop) === null) break;
    client = hop;
    if (!isTrusted(trustedProxies, hop)) break;
  }
  return client;
}

/**
 * The key a client is limited by (failed authentications, rate limits): an IPv4 address as it
 * is, an IPv6 address by its /64 — one subscriber's allocation, whose 2^64 addresses a client
 * can rotate through freely.
 */
export function limitKey(address: string): string {
  if (familyOf(address) !== 'ipv6') return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase().split('%')[0]!;
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}
