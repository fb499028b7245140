// fetch for every outbound call, through one connection pool whose connections open only to
// addresses the AddressGuard lets through: the host is resolved here, every address it resolves
// to is checked, and the connection is made to the checked address (TLS still verifies the
// name), so a DNS answer that changes between a check and the connect cannot slip inside.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { AddressRefused, type AddressGuard } from './address-guard.ts';

/** A URL's host without the brackets of an IPv6 literal. */
const bareHost = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/** How long one address may take to connect. */
const CONNECT_TIMEOUT_MS = 4_000;

/** Every address of `host`, as the system resolver gives them. */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The addresses to connect to for `host`, in the resolver's order: the host itself when it is an
 * IP, else every address it resolves to; refused (AddressRefused) when the host or any address it
 * resolves to is inside.
 */
export async function checkedAddresses(
  host: string,
  guard: AddressGuard,
  resolve: Resolve,
): Promise<string[]> {
  const bare = bareHost(host);
  const literal = isIP(bare) !== 0;
  const addresses = literal ? [bare] : await resolve(bare);
  if (addresses.length === 0) throw new AddressRefused(host, 'it resolves to no address');
  for (const address of addresses) {
    const why = guard.refusal(address);
    if (why) throw new AddressRefused(host, literal ? `it is ${why}` : `it resolves to ${why}`);
  }
  return addresses;
}

export function guardedFetch(guard: AddressGuard, resolve: Resolve = systemResolve): typeof fetch {
  // Per address, so that a silent one leaves time for the next within a call's 10 s.
  const connect = buildConnector({ timeout: CONNECT_TIMEOUT_MS });
  const agent = new Agent({
    connect: (options, callback) => {
      const host = options.hostname;
      const name = bareHost(host);
      const servername = options.servername || (isIP(name) ? undefined : name);
      // Each checked address in turn, as Node tries a name's addresses (an IPv6 answer first on
      // a host without IPv6 must not fail the call).
      const attempt = (addresses: string[], i: number): void => {
        try {
          connect({ ...options, hostname: addresses[i]!, servername }, (err, socket) => {
            if (err && i + 1 < addresses.length) attempt(addresses, i + 1);
            else if (err) callback(err, null);
            else callback(null, socket!);
          });
        } catch (err) {
          callback(err as Error, null);
        }
      };
      checkedAddresses(host, guard, resolve).then(
        (addresses) => attempt(addresses, 0),
        (err: Error) => callback(err, null),
      );
    },
  });
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent,
    })) as unknown as typeof fetch;
}
