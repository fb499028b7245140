// Address ranges as the operator's outbound guard and the builds' NetworkPolicy both read them:
// parsed once, written canonically (a NetworkPolicy takes `10.1.0.0/16`, not `10.1.2.3/16`), and
// compared (which range lies inside another).
import { BlockList, isIP } from 'node:net';

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `a.b.c.d/n`, `x::/n`, or an address alone (one host); undefined when it is none of them. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText, extra] = text.trim().split('/');
  // No zone (fe80::1%eth0): a range is the same on every interface.
  if (extra !== undefined || address.includes('%')) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? String(max)) || prefix > max) return undefined;
  return { address, prefix, family };
}

const bits = (family: Cidr['family']) => (family === 'ipv4' ? 32 : 128);

function toNumber(address: string, family: Cidr['family']): bigint {
  if (family === 'ipv4') return address.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
  // Through the URL parser: it expands `::` and writes an embedded IPv4 address in hex.
  const normal = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = '', tail] = normal.split('::');
  const groups = (s: string) => (s ? s.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail ?? '').length;
  const all = [
    ...groups(head),
    ...Array<string>(tail === undefined ? 0 : missing).fill('0'),
    ...groups(tail ?? ''),
  ];
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function toAddress(value: bigint, family: Cidr['family']): string {
  if (family === 'ipv4') return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) =>
    ((value >> shift) & 0xffffn).toString(16),
  );
  // The URL parser writes it shortest (RFC 5952); IPv4-mapped addresses in hex (::ffff:a00:1),
  // which the API server takes as they are.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** `range` as its network address and prefix: `10.1.2.3/16` is `10.1.0.0/16`. */
export function cidrText(range: Cidr): string {
  const width = BigInt(bits(range.family));
  const hostBits = width - BigInt(range.prefix);
  const network = (toNumber(range.address, range.family) >> hostBits) << hostBits;
  return `${toAddress(network, range.family)}/${range.prefix}`;
}

/** Whether `inner` lies inside `outer` and is smaller (a NetworkPolicy's `except` must). */
export function strictlyWithin(inner: Cidr, outer: Cidr): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  const list = new BlockList();
  list.addSubnet(outer.address, outer.prefix, outer.family);
  return list.check(inner.address, inner.family);
}
