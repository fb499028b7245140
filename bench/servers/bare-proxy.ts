// Child process: the least a process between the provider and the API server can cost. A bare
// node:http server that creates the Bundle in each POST body through lib/kube.ts (the gateway's
// own client: one connection pool, HTTP/1.1) and answers 201; it checks and plans nothing. The
// deliveries suite measures it beside the gateway and raw creates: the gateway ÷ this proxy is
// what the gateway's own work costs, this proxy ÷ raw creates what the extra hop costs.
import { keepAliveBehindProxies } from '../../lib/keep-alive.ts';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadKubeConfig, slipwayApi } from '../../lib/kube.ts';
import { failToParent, serveParent } from '../lib/child.ts';

async function main(): Promise<void> {
  const api = slipwayApi(loadKubeConfig());
  const answer = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      let bundle: { metadata: { name: string; namespace: string } };
      try {
        bundle = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof bundle;
      } catch (error) {
        answer(res, 400, `not a Bundle: ${String(error)}`);
        return;
      }
      api.add('Bundle', bundle).then(
        () => answer(res, 201, 'created'),
        (error: unknown) => answer(res, 502, String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  keepAliveBehindProxies(server); // as the servers they stand beside
  serveParent({}, { port: (server.address() as AddressInfo).port });
}

main().catch(failToParent);
