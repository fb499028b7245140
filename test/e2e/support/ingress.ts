// What the real node's ingress controller (Caddy, scripts/real-node/ingress/) serves for a host:
// a request to its port on this machine with that Host, as a browser whose DNS points the host at
// the node would send it.
import { request } from 'node:http';
import { kubectl, waitFor } from '../../support/cluster.ts';

/** `<status> <body>` of GET / for `host`. */
export function throughIngress(port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(`${res.statusCode} ${Buffer.concat(chunks).toString('utf8')}`));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits until the ingress controller answers GET / for `host` with 200 and `page`. */
export async function servedThroughIngress(port: number, host: string, page: string): Promise<void> {
  await waitFor(
    `${host} to serve ${page.trim()}`,
    async () => (await throughIngress(port, host).catch(() => '')) === `200 ${page}` || undefined,
    300_000,
    1_000,
  );
}

/**
 * Waits until pull request `number`'s Preview and its Deployment, Service and Ingress are gone
 * from `namespace`, and the ingress controller no longer serves `host`.
 */
export async function previewGone(
  namespace: string,
  number: number,
  port: number,
  host: string,
): Promise<void> {
  await waitFor(
    'the preview and its Deployment, Service and Ingress to go',
    async () => {
      const { stdout } = await kubectl([
        'get',
        'previews,deployments,services,ingresses',
        '-n',
        namespace,
        '-o',
        'name',
      ]);
      return new RegExp(`pr-${number}\\b`).test(stdout) ? undefined : true;
    },
    60_000,
  );
  // The ingress controller drops the route within moments of the Ingress going.
  await waitFor(
    `${host} to be served no more`,
    async () => ((await throughIngress(port, host).catch(() => '')).startsWith('200') ? undefined : true),
    30_000,
    250,
  );
}
