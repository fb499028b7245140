// fetch for every outbound call, through one connection pool whose connections open only to
// addresses the AddressGuard lets through: the host is resolved here, every address it resolves
// to is checked, and the connection is made to the checked address (TLS still verifies the
// name), so a DNS answer that changes between a check and the connect cannot slip inside.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { AddressRefused, type AddressGuard } from './address-guard.ts';

/** Every address of `host`, as the system resolver gives them. */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * The address to connect to for `host`: the host itself when it is an IP, else its first
 * address; refused (AddressRefused) when the host or any address it resolves to is inside.
 */
export async function checkedAddress(host: string, guard: AddressGuard, resolve: Resolve): Promise<string> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(bare) ? [bare] : await resolve(bare);
  if (addresses.length === 0) throw new AddressRefused(host, 'it resolves to no address');
  for (const address of addresses) {
    const why = guard.refusal(address);
    if (why) throw new AddressRefused(host, bare === address ? why : `it resolves to ${why}`);
  }
  return addresses[0]!;
}

export function guardedFetch(guard: AddressGuard, resolve: Resolve = systemResolve): typeof fetch {
  const connect = buildConnector({});
  const agent = new Agent({
    connect: (options, callback) => {
      const host = options.hostname;
      checkedAddress(host, guard, resolve).then(
        (address) => {
          const name = host.replace(/^\[(.*)\]$/, '$1');
          connect(
            {
              ...options,
              hostname: address,
              servername: options.servername || (isIP(name) ? undefined : name),
            },
            callback,
          );
        },
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
