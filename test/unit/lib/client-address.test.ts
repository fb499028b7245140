// Whose request is it: X-Forwarded-For is believed only from trusted proxies.
import { describe, expect, it } from '@jest/globals';
import { clientAddress, parseTrustedProxies, limitKey } from '../../../lib/client-address.ts';

const proxies = parseTrustedProxies(['10.0.0.0/8', '192.168.1.1', 'fd00::/8']);

type Row = [
  name: string,
  peer: string,
  header: string | string[] | undefined,
  trusted: typeof proxies | null,
  expected: string,
];

describe('clientAddress', () => {
  const rows: Row[] = [
    ['no trusted proxies configured', '10.0.0.5', '203.0.113.7', null, '10.0.0.5'],
    ['untrusted peer: header ignored', '198.51.100.2', '203.0.113.7', proxies, '198.51.100.2'],
    ['trusted peer, one hop', '10.0.0.5', '203.0.113.7', proxies, '203.0.113.7'],
    ['trusted single address', '192.168.1.1', '203.0.113.7', proxies, '203.0.113.7'],
    ['IPv4-mapped peer', '::ffff:10.0.0.5', '203.0.113.7', proxies, '203.0.113.7'],
    ['IPv6 trusted peer', 'fd00::1', '2001:db8::7', proxies, '2001:db8::7'],
    [
      'chained trusted proxies are skipped',
      '10.0.0.5',
      '203.0.113.7, 10.0.0.9, 10.1.2.3',
      proxies,
      '203.0.113.7',
    ],
    ['a forged leftmost entry is not believed', '10.0.0.5', '1.1.1.1, 203.0.113.7', proxies, '203.0.113.7'],
    ['garbage after a real hop stops the walk', '10.0.0.5', '203.0.113.7, not-an-ip', proxies, '10.0.0.5'],
    ['a port on the hop is dropped', '10.0.0.5', '203.0.113.7:4711', proxies, '203.0.113.7'],
    ['bracketed IPv6 with port', '10.0.0.5', '[2001:db8::7]:4711', proxies, '2001:db8::7'],
    ['every hop trusted: the leftmost', '10.0.0.5', '10.0.0.7, 10.0.0.6', proxies, '10.0.0.7'],
    ['trusted peer without the header', '10.0.0.5', undefined, proxies, '10.0.0.5'],
    ['repeated headers read as one list', '10.0.0.5', ['1.1.1.1', '203.0.113.7'], proxies, '203.0.113.7'],
  ];
  it.each(rows)('%s', (_name, peer, header, trusted, expected) => {
    expect(clientAddress(peer, header, trusted)).toBe(expected);
  });
});

describe('limitKey', () => {
  it('keeps IPv4 addresses and keys IPv6 addresses by their /64, however they are written', () => {
    expect(limitKey('203.0.113.7')).toBe('203.0.113.7');
    expect(limitKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:DB8:1:2:0:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(limitKey('::1')).toBe('0:0:0:0::/64');
    expect(limitKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(limitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(limitKey('unknown')).toBe('unknown');
  });
});

describe('parseTrustedProxies', () => {
  it.each(['10.0.0.0/33', 'not-an-ip', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/x', ''])(
    'rejects %j',
    (entry) => {
      expect(() => parseTrustedProxies([entry])).toThrow(/invalid trusted proxy/);
    },
  );
});
