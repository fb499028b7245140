// Outbound calls cannot be aimed inside: the address actually connected to is checked after DNS,
// and a refused one opens no socket. Real HTTP on real ports; only DNS is given (a name that
// resolves to 10.1.2.3 cannot be had from the machine's resolver).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressGuard, AddressRefused, embeddedIpv4 } from '../../../../operator/outbound/address-guard.ts';
import { parseCidr } from '../../../../rules/cidr.ts';
import { checkedAddresses, guardedFetch } from '../../../../operator/outbound/guarded-fetch.ts';
import { attempt } from '../../../../operator/delivery/attempt.ts';

let server: Server;
let port: number;
let connections = 0;
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests += 1;
    res.end('{"ok":true}');
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.close();
});

/** What the fetch failed with: the cause fetch wraps ("fetch failed"). */
async function failure(fetch: typeof globalThis.fetch, url: string): Promise<unknown> {
  try {
    await fetch(url);
  } catch (err) {
    return (err as { cause?: unknown }).cause ?? err;
  }
  throw new Error(`${url} was fetched`);
}

const guard = new AddressGuard();

describe('guarded fetch', () => {
  it('refuses http://127.0.0.1 with no socket opened', async () => {
    const before = connections;
    const cause = await failure(guardedFetch(guard), `http://127.0.0.1:${port}/hook`);
    expect(cause).toBeInstanceOf(AddressRefused);
    expect((cause as Error).message).toMatch(/127\.0\.0\.1: it is an address inside.*SLIPWAY_OUTBOUND_ALLOW/);
    expect(connections).toBe(before);
  });

  it('refuses the metadata address 169.254.169.254 and a Service address', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'https://10.96.0.1/api',
      'http://[::1]:80/',
    ]) {
      const cause = await failure(guardedFetch(guard), url);
      expect(cause).toBeInstanceOf(AddressRefused);
    }
  });

  it('refuses a name that resolves to 10.1.2.3, and one with any address inside', async () => {
    const resolvesTo =
      (...addresses: string[]) =>
      async () =>
        addresses;
    const cause = await failure(guardedFetch(guard, resolvesTo('10.1.2.3')), 'https://hooks.example.com/x');
    expect((cause as Error).message).toBe(
      'refused to connect to hooks.example.com: it resolves to an address inside (loopback, link-local, private, ' +
        "or the cluster's ranges); Slipway calls only public addresses unless SLIPWAY_OUTBOUND_ALLOW (chart: " +
        'operator.outbound.allowCidrs) names the range',
    );
    await expect(
      checkedAddresses('mixed.example.com', guard, resolvesTo('93.184.215.14', '10.0.0.7')),
    ).rejects.toThrow(AddressRefused);
    await expect(checkedAddresses('public.example.com', guard, resolvesTo('93.184.215.14'))).resolves.toEqual(
      ['93.184.215.14'],
    );
  });

  it('connects to an allow-listed /32, to the address the name resolved to', async () => {
    const allowed = new AddressGuard({ allow: [parseCidr('127.0.0.1/32')!] });
    const before = requests;
    const res = await guardedFetch(allowed, async () => ['127.0.0.1'])(`http://receiver.test:${port}/hook`);
    expect(res.status).toBe(200);
    expect(requests).toBe(before + 1);
    // The /32 is that address alone.
    expect(allowed.refusal('127.0.0.2')).toMatch(/inside/);
  });

  it("tries a name's addresses in turn, as Node does (an unreachable first one does not fail the call)", async () => {
    const both = new AddressGuard({ allow: [parseCidr('127.0.0.2/32')!, parseCidr('127.0.0.1/32')!] });
    const before = requests;
    const res = await guardedFetch(both, async () => ['127.0.0.2', '127.0.0.1'])(
      `http://receiver.test:${port}/`,
    );
    expect(res.status).toBe(200);
    expect(requests).toBe(before + 1);
  });

  it('keeps the refusal in the call result, not tried again', async () => {
    const result = await attempt(
      { method: 'POST', url: `http://127.0.0.1:${port}/hook`, headers: {}, body: {} },
      { fetch: guardedFetch(guard), secrets: [], attempt: 1, now: Date.now() },
    );
    expect(result).toMatchObject({
      ok: false,
      refused: true,
      problem: expect.stringMatching(/^refused to connect/),
    });
    // A refusal names no time for another try.
    expect(result).not.toHaveProperty('retryInMs');
  });
});

describe('address guard', () => {
  it('checks IPv4 written as IPv6 as the IPv4 address it reaches', () => {
    expect(embeddedIpv4('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(embeddedIpv4('64:ff9b::a9fe:a9fe')).toBe('169.254.169.254');
    expect(guard.refusal('::ffff:10.1.2.3')).toMatch(/inside/);
    expect(guard.refusal('::ffff:93.184.215.14')).toBeUndefined();
  });

  it('lets public addresses through and refuses private, shared and unique-local ones', () => {
    for (const address of ['93.184.215.14', '2606:2800:220:1::1', '8.8.8.8'])
      expect(guard.refusal(address)).toBeUndefined();
    for (const address of [
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '100.64.0.1',
      '0.0.0.0',
      'fd00::1',
      'fe80::1',
    ])
      expect(guard.refusal(address)).toMatch(/inside/);
  });

  it("refuses the cluster's ranges as last read, beside the configured ones", () => {
    const g = new AddressGuard();
    expect(g.refusal('2600:1f14:abc::5')).toBeUndefined();
    g.setClusterRanges([parseCidr('2600:1f14:abc::/56')!]);
    expect(g.refusal('2600:1f14:abc::5')).toMatch(/inside/);
    g.setClusterRanges([]);
    expect(g.refusal('2600:1f14:abc::5')).toBeUndefined();
    expect(g.refusal('10.0.0.1')).toMatch(/inside/);
  });

  it('refuses more ranges when told (a public pod range), and parses only ranges', () => {
    const cluster = new AddressGuard({ deny: [parseCidr('34.118.224.0/20')!] });
    expect(cluster.refusal('34.118.230.9')).toMatch(/inside/);
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(parseCidr('example.com/32')).toBeUndefined();
    expect(parseCidr('10.0.0.1')).toEqual({ address: '10.0.0.1', prefix: 32, family: 'ipv4' });
  });
});
