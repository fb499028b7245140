// Child process: the least a process between the provider and the API server can cost. A bare
// node:http server that creates the Bundle in each POST body through lib/kube.ts (the gateway's
// own client: one connection pool, HTTP/1.1) and answers 201; it checks and plans nothing. The
// deliveries suite measures it beside the gateway and raw creates: the gateway ÷ this proxy is
// what the gateway's own work costs, this proxy ÷ raw creates what the extra hop costs.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadKubeConfig, slipwayApi } from '../../lib/kube.ts';
import { failToParent, serveParent } from '../lib/child.ts';

async function main(): Promise<void> {
  const api = slipwayApi(loadKubeConfig());
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bundle = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        metadata: { name: string; namespace: string };
      };
      api.add('Bundle', bundle).then(
        () => {
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end('{"result":"created"}');
        },
        (error: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.keepAliveTimeout = 60_000;
  serveParent({}, { port: (server.address() as AddressInfo).port });
}

main().catch(failToParent);
