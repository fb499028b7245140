// The bench control plane's API server as a load target: its origin, and the TLS settings and
// headers its kubeconfig gives (CA, client certificate, bearer token), so the load generator
// can send raw requests to it the way any client does, without a Kubernetes client library.
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import type { buildConnector } from 'undici';

export interface ApiServerTarget {
  origin: string;
  connect: buildConnector.BuildOptions;
  headers: Record<string, string>;
  /** HTTP/1.1, as lib/kube.ts speaks to the API server (faster per request than HTTP/2 there). */
  allowH2: false;
}

function material(data: string | undefined, file: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  return file ? readFileSync(file) : undefined;
}

export function apiServerTarget(kc: KubeConfig): ApiServerTarget {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) throw new Error('the bench kubeconfig has no current cluster');
  const { origin } = new URL(cluster.server);
  const headers: Record<string, string> = {};
  if (user?.token) headers.authorization = `Bearer ${user.token}`;
  return {
    origin,
    headers,
    allowH2: false,
    connect: {
      ca: material(cluster.caData, cluster.caFile),
      cert: material(user?.certData, user?.certFile),
      key: material(user?.keyData, user?.keyFile),
      rejectUnauthorized: !cluster.skipTLSVerify,
    },
  };
}
