// The real node's ingress controller, its pure part: the Ingresses of one IngressClass, with the
// Services and EndpointSlices they point at, as the configuration of Caddy (the proxy that
// serves them, loaded through its admin API). One route per host and path, longest paths first.
// A backend is dialled at its Service's cluster IP and port, so kube-proxy picks a ready pod:
// a rollout changes no route, and Caddy (whose every change is a reload that drops its idle
// client connections) is reloaded only when Ingresses or Services change, or a backend gains
// its first ready endpoint or loses its last. A backend without one answers 503, as ingress
// controllers do. (A headless Service is dialled at its ready endpoints.)
import type { V1EndpointSlice, V1Ingress, V1Service } from '@kubernetes/client-node';

export interface IngressInputs {
  className: string;
  /** Whether Ingresses without a class are ours (the class is the cluster's default). */
  isDefaultClass: boolean;
  ingresses: readonly V1Ingress[];
  services: readonly V1Service[];
  endpointSlices: readonly V1EndpointSlice[];
}

interface Route {
  host: string;
  paths: string[];
  /** Sort key: the longer the prefix, the earlier. */
  length: number;
  upstreams: string[];
  where: string;
}

type CaddyRoute = Record<string, unknown>;

/** Where to dial a Service port (by name or number): its cluster IP, or none without a ready endpoint. */
export function upstreamsOf(
  namespace: string,
  serviceName: string,
  port: { name?: string; number?: number },
  services: readonly V1Service[],
  slices: readonly V1EndpointSlice[],
): string[] {
  const service = services.find(
    (s) => s.metadata?.namespace === namespace && s.metadata?.name === serviceName,
  );
  const servicePort = service?.spec?.ports?.find((p) =>
    port.name ? p.name === port.name : p.port === port.number,
  );
  if (!servicePort) return [];
  const dials: string[] = [];
  for (const slice of slices) {
    if (slice.metadata?.namespace !== namespace) continue;
    if (slice.metadata?.labels?.['kubernetes.io/service-name'] !== serviceName) continue;
    const slicePort = slice.ports?.find((p) => (p.name ?? '') === (servicePort.name ?? ''));
    if (slicePort?.port === undefined) continue;
    for (const endpoint of slice.endpoints ?? []) {
      if (endpoint.conditions?.ready === false) continue;
      for (const address of endpoint.addresses) dials.push(`${address}:${slicePort.port}`);
    }
  }
  if (dials.length === 0) return [];
  const clusterIP = service?.spec?.clusterIP;
  if (clusterIP && clusterIP !== 'None') return [`${clusterIP}:${servicePort.port}`];
  return [...new Set(dials)].sort();
}

function pathsFor(
  path: string | undefined,
  pathType: string | undefined,
): { paths: string[]; length: number } {
  const p = path || '/';
  if (pathType === 'Exact') return { paths: [p], length: p.length + 0.5 };
  if (p === '/') return { paths: ['/*'], length: 1 };
  const base = p.replace(/\/+$/, '');
  return { paths: [base, `${base}/*`], length: base.length };
}

/** Caddy's JSON configuration serving the Ingresses on the `listen` addresses. */
export function caddyConfig(
  inputs: IngressInputs,
  listen: string[],
  adminListen: string,
): Record<string, unknown> {
  const routes: Route[] = [];
  for (const ingress of inputs.ingresses) {
    const cls = ingress.spec?.ingressClassName;
    if (cls ? cls !== inputs.className : !inputs.isDefaultClass) continue;
    const namespace = ingress.metadata!.namespace!;
    for (const rule of ingress.spec?.rules ?? []) {
      for (const httpPath of rule.http?.paths ?? []) {
        const backend = httpPath.backend.service;
        if (!backend) continue;
        routes.push({
          host: rule.host ?? '',
          ...pathsFor(httpPath.path, httpPath.pathType),
          upstreams: upstreamsOf(
            namespace,
            backend.name,
            backend.port ?? {},
            inputs.services,
            inputs.endpointSlices,
          ),
          where: `${namespace}/${ingress.metadata!.name}`,
        });
      }
    }
  }
  // Hosts before the catch-all, longer paths before shorter ones (ingress path precedence).
  routes.sort((a, b) => Number(a.host === '') - Number(b.host === '') || b.length - a.length);
  const caddyRoutes: CaddyRoute[] = routes.map((r) => ({
    match: [{ ...(r.host ? { host: [r.host] } : {}), path: r.paths }],
    handle: [
      r.upstreams.length > 0
        ? {
            handler: 'reverse_proxy',
            upstreams: r.upstreams.map((dial) => ({ dial })),
            // A connection per request: none stays pooled to a pod that is shutting down (whose
            // closing it a request could race into, a 502). No retries: a pod that stops
            // listening while still in rotation shows, as it would to any client.
            transport: { protocol: 'http', keep_alive: { enabled: false } },
          }
        : {
            handler: 'static_response',
            status_code: 503,
            headers: { 'Retry-After': ['5'] },
            body: `no ready endpoint for ${r.where}\n`,
          },
    ],
    terminal: true,
  }));
  return {
    admin: { listen: adminListen, config: { persist: false } },
    apps: {
      http: {
        servers: {
          ingress: {
            listen,
            automatic_https: { disable: true },
            routes: [
              ...caddyRoutes,
              {
                handle: [
                  {
                    handler: 'static_response',
                    status_code: 404,
                    body: 'no Ingress matches this host and path\n',
                  },
                ],
              },
            ],
            logs: {},
          },
        },
      },
    },
  };
}
