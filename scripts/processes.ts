// Child processes of the developer tools (npm start, the e2e tier, the benchmarks): a free port
// to give one, and stopping one politely.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/**
 * The ports of the services on the real node's host address that builds reach (git servers,
 * Gitea, the gateway of the e2e tier): the build namespace's NetworkPolicy opens these, DNS, the
 * registry and the ingress on that address, and no other port of it (not the kubelet's, the API
 * server's or etcd's). Below the kernel's ephemeral range, so no outgoing connection holds one.
 */
export const HOST_SERVICE_PORTS: readonly [number, number] = [20100, 20199];

/** A port of HOST_SERVICE_PORTS free on `address` right now. */
export async function freeServicePort(address: string): Promise<number> {
  const [first, last] = HOST_SERVICE_PORTS;
  const count = last - first + 1;
  const start = Math.floor(Math.random() * count);
  for (let i = 0; i < count; i++) {
    const port = first + ((start + i) % count);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) =>
      server.once('error', () => resolve(false)).listen(port, address, () => resolve(true)),
    );
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
  throw new Error(`no port of ${first}-${last} is free on ${address}`);
}

/** A port free on `address` right now. */
export async function freePort(address = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.listen(0, address, resolve).once('error', reject));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
