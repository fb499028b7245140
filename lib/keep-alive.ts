// The public servers (gateway, status API) sit behind ingress controllers and load balancers that
// keep idle upstream connections for 60 s (AWS ALB, Google Cloud load balancers, nginx's
// upstream keepalive). Node closes an idle kept-alive connection after 5 s: a proxy that sends
// a request on one just as Node closes it answers its client 502. Outlive the proxies instead.
import type { Server } from 'node:http';

export const PUBLIC_KEEP_ALIVE_TIMEOUT_MS = 65_000;

export function keepAliveBehindProxies(server: Server): Server {
  server.keepAliveTimeout = PUBLIC_KEEP_ALIVE_TIMEOUT_MS;
  return server;
}
