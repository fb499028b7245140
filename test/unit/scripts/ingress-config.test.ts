// The real node's ingress controller turns Ingresses into Caddy's routes: host and path rules
// in ingress precedence, upstreams from the ready endpoints of the backend port, 503 without any.
import { describe, expect, it } from '@jest/globals';
import type { V1EndpointSlice, V1Ingress, V1Service } from '@kubernetes/client-node';
import { caddyConfig, upstreamsOf } from '../../../scripts/real-node/ingress/caddy-config.ts';

const service: V1Service = {
  metadata: { namespace: 'sys', name: 'gw' },
  spec: {
    clusterIP: '10.0.0.80',
    ports: [
      { name: 'http', port: 80, targetPort: 'http' },
      { name: 'admin', port: 8081 },
    ],
  },
};
const slice = (addresses: string[], ready: boolean): V1EndpointSlice => ({
  addressType: 'IPv4',
  metadata: {
    namespace: 'sys',
    name: `gw-${addresses.join()}`,
    labels: { 'kubernetes.io/service-name': 'gw' },
  },
  ports: [
    { name: 'http', port: 8080 },
    { name: 'admin', port: 8081 },
  ],
  endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready } })),
});
const ingress = (name: string, host: string, path: string, className?: string): V1Ingress => ({
  metadata: { namespace: 'sys', name },
  spec: {
    ...(className ? { ingressClassName: className } : {}),
    rules: [
      {
        host,
        http: {
          paths: [{ path, pathType: 'Prefix', backend: { service: { name: 'gw', port: { name: 'http' } } } }],
        },
      },
    ],
  },
});
type Routes = { match?: { host?: string[]; path: string[] }[]; handle: Record<string, unknown>[] }[];
const routesOf = (config: Record<string, unknown>) =>
  (config as { apps: { http: { servers: { ingress: { routes: Routes } } } } }).apps.http.servers.ingress
    .routes;

describe('upstreamsOf', () => {
  it("dials the Service's cluster IP and port while it has a ready endpoint", () => {
    const slices = [slice(['10.0.0.2', '10.0.0.3'], true), slice(['10.0.0.4'], false)];
    expect(upstreamsOf('sys', 'gw', { name: 'http' }, [service], slices)).toEqual(['10.0.0.80:80']);
    expect(upstreamsOf('sys', 'gw', { number: 8081 }, [service], slices)).toEqual(['10.0.0.80:8081']);
    expect(upstreamsOf('other', 'gw', { name: 'http' }, [service], slices)).toEqual([]);
  });

  it('has none when every endpoint is terminating or not ready', () => {
    expect(upstreamsOf('sys', 'gw', { name: 'http' }, [service], [slice(['10.0.0.4'], false)])).toEqual([]);
  });

  it('dials the ready endpoints of a headless Service', () => {
    const headless = { ...service, spec: { ...service.spec, clusterIP: 'None' } };
    const slices = [slice(['10.0.0.2', '10.0.0.3'], true), slice(['10.0.0.4'], false)];
    expect(upstreamsOf('sys', 'gw', { name: 'http' }, [headless], slices)).toEqual([
      '10.0.0.2:8080',
      '10.0.0.3:8080',
    ]);
  });
});

describe('caddyConfig', () => {
  const base = {
    className: 'caddy',
    isDefaultClass: true,
    services: [service],
    endpointSlices: [slice(['10.0.0.2'], true)],
  };

  it('serves its class and class-less Ingresses, longer paths first, then a 404', () => {
    const routes = routesOf(
      caddyConfig(
        {
          ...base,
          ingresses: [
            ingress('a', 'hooks.test', '/'),
            ingress('b', 'hooks.test', '/api', 'caddy'),
            ingress('c', 'x.test', '/', 'nginx'),
          ],
        },
        [':80'],
        '127.0.0.1:2019',
      ),
    );
    expect(routes.map((r) => r.match?.[0])).toEqual([
      { host: ['hooks.test'], path: ['/api', '/api/*'] },
      { host: ['hooks.test'], path: ['/*'] },
      undefined,
    ]);
    expect(routes[0]!.handle[0]).toMatchObject({
      handler: 'reverse_proxy',
      upstreams: [{ dial: '10.0.0.80:80' }],
      transport: { keep_alive: { enabled: false } },
    });
    expect(routes[2]!.handle[0]).toMatchObject({ handler: 'static_response', status_code: 404 });
  });

  it('answers 503 with Retry-After while a backend has no ready endpoint', () => {
    const routes = routesOf(
      caddyConfig(
        {
          ...base,
          endpointSlices: [slice(['10.0.0.2'], false)],
          ingresses: [ingress('a', 'hooks.test', '/')],
        },
        [':80'],
        'x',
      ),
    );
    expect(routes[0]!.handle[0]).toMatchObject({
      handler: 'static_response',
      status_code: 503,
      headers: { 'Retry-After': ['5'] },
    });
  });

  it('leaves class-less Ingresses to the default class', () => {
    const routes = routesOf(
      caddyConfig(
        { ...base, isDefaultClass: false, ingresses: [ingress('a', 'hooks.test', '/')] },
        [':80'],
        'x',
      ),
    );
    expect(routes).toHaveLength(1);
  });
});
