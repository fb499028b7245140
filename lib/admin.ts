// The admin port of every process: liveness, readiness and Prometheus metrics, apart from the
// public port so that neither probes nor scrapes can be reached from outside.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registry } from './metrics.ts';

export interface AdminOptions {
  port: number;
  host?: string;
  /** Ready when caches have synced and the process can do its job. */
  ready: () => boolean;
}

export async function startAdminServer({ port, host = '0.0.0.0', ready }: AdminOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      const ok = ready();
      res.writeHead(ok ? 200 : 503, { 'Content-Type': 'text/plain' }).end(ok ? 'ready\n' : 'not ready\n');
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export function serverUrl(server: Server, host = '127.0.0.1'): string {
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal exits at once. */
export function onShutdown(
  stop: () => Promise<void>,
  log: { info: (msg: string) => void; error: (o: object, msg: string) => void },
) {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info(`${signal} received; shutting down`);
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err: String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
}
