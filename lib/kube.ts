// Kubernetes access for all three processes: configuration, typed API clients, and a small
// helper for Slipway's own kinds (list, get, create, merge-patch, status patch, delete).
import type { RequestOptions } from 'node:https';
import { Agent, request, type Dispatcher } from 'undici';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  EventsV1Api,
  NetworkingV1Api,
  RbacAuthorizationV1Api,
  KubeConfig,
  HttpMethod,
  PatchStrategy,
  RequestContext,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { GROUP, VERSION, kinds, type KindDefinition } from '../crds/index.ts';

export type { KubeConfig };

/** KUBECONFIG, then ~/.kube/config, then the in-cluster service account; one connection pool. */
export function loadKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return shareConnections(kc);
}

/** A kubeconfig file, with one connection pool (tools, tests and benchmarks). */
export function kubeConfigFromFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return shareConnections(kc);
}

/** The same connection as `kc`, acting as `user` (Impersonate-User: `kc`'s user may impersonate). */
export function impersonating(kc: KubeConfig, user: string): KubeConfig {
  const cluster = kc.getCurrentCluster()!;
  const current = kc.getCurrentUser()!;
  const out = new KubeConfig();
  out.loadFromOptions({
    clusters: [cluster],
    users: [{ ...current, name: 'impersonated', impersonateUser: user }],
    contexts: [{ name: 'impersonated', cluster: cluster.name, user: 'impersonated' }],
    currentContext: 'impersonated',
  });
  return out;
}

/** How long computed credentials (bearer tokens, exec plugin output) are reused. */
export const CREDENTIALS_REUSE_MS = 10_000;

/**
 * One connection pool and one credentials lookup for every API call of the process.
 * @kubernetes/client-node 2.0.1, on each call made through a generated API client, a Watch or
 * an informer, reads the CA, client certificate and key files again and builds a new undici
 * Agent (a new TLS connection), because applySecurityAuthentication caches neither; for an
 * operator making several calls per reconcile that costs latency and memory (a CPU profile of
 * the operator under load showed open/read/fstat of those files among its busiest frames).
 * Here the first dispatcher serves every call, and the headers it computes (a token, which may
 * rotate) are reused for CREDENTIALS_REUSE_MS, well under client-go's one-minute re-read of a
 * token file.
 */
export function shareConnections(kc: KubeConfig): KubeConfig {
  const apply = kc.applySecurityAuthentication.bind(kc);
  let shared: Promise<ReturnType<RequestContext['getDispatcher']>> | undefined;
  let credentials: { headers: Record<string, string>; at: number } | undefined;
  kc.applySecurityAuthentication = async (context) => {
    const now = Date.now();
    if (!credentials || now - credentials.at > CREDENTIALS_REUSE_MS) {
      const probe = new RequestContext(context.getUrl(), context.getHttpMethod());
      await apply(probe);
      // Set without an await in between: calls that start together share the first one's.
      shared ??= http1Dispatcher(kc).then((own) => own ?? probe.getDispatcher());
      credentials = { headers: { ...probe.getHeaders() }, at: now };
    }
    for (const [name, value] of Object.entries(credentials.headers)) context.setHeaderParam(name, value);
    const dispatcher = await shared;
    if (dispatcher) context.setDispatcher(dispatcher);
  };
  return kc;
}

/** client-node's keep-alive settings for API server connections (client-go's 30 s). */
const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelay: 30_000 };

/**
 * Kept-alive HTTP/1.1 connections to the API server, where undici would otherwise negotiate one
 * HTTP/2 connection for everything. Measured on the bench control plane at c=1, in interleaved
 * rounds: Bundle creates sent straight to the API server ran at 218/s over HTTP/1.1 against
 * 190/s over HTTP/2, and through a bare Node proxy at 170/s against 156/s: per request, HTTP/2
 * costs both Node and the API server more. Each watch holds a connection of its own, as
 * client-go's watches do with HTTP/2 off. Through a proxy, client-node's own dispatcher is kept.
 */
async function http1Dispatcher(kc: KubeConfig): Promise<Dispatcher | undefined> {
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = tls;
  const agentOptions = { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername };
  const options = kc.createDispatcherOptions(kc.getCurrentCluster(), agentOptions);
  if (options.type === 'agent') return new Agent({ connect: options.connect, allowH2: false });
  // A server certificate the system trusts, with client-node's keep-alive settings.
  if (options.type === 'none') return new Agent({ connect: KEEP_ALIVE, allowH2: false });
  return undefined;
}

export function kubeClients(kc: KubeConfig) {
  return {
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
    events: kc.makeApiClient(EventsV1Api),
    rbac: kc.makeApiClient(RbacAuthorizationV1Api),
    networking: kc.makeApiClient(NetworkingV1Api),
    apply: serverSideApply(kc),
  };
}

/** The plural resource of each built-in kind the operator applies. */
const APPLIED_KINDS: Record<string, string> = {
  Deployment: 'deployments',
  Service: 'services',
  Ingress: 'ingresses',
  NetworkPolicy: 'networkpolicies',
};

/** The field manager of everything the operator applies (`kubectl get -o yaml --show-managed-fields`). */
export const FIELD_MANAGER = 'slipway';

/**
 * Server-side apply of a whole object Slipway owns (a preview's Deployment, Service, Ingress; the
 * NetworkPolicy around builds):
 * created when missing, else brought to exactly these fields, taking them from other managers.
 */
export function serverSideApply(kc: KubeConfig) {
  return async <
    T extends { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } },
  >(
    object: T,
  ): Promise<T> => {
    const plural = APPLIED_KINDS[object.kind ?? ''];
    const { name, namespace } = object.metadata ?? {};
    if (!plural || !name || !namespace)
      throw new Error(`cannot apply a ${object.kind} without a name and namespace`);
    const group = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
    const path =
      `${group}/namespaces/${encodeURIComponent(namespace)}/${plural}/${encodeURIComponent(name)}` +
      `?fieldManager=${FIELD_MANAGER}&force=true`;
    return jsonRequest<T>(kc, HttpMethod.PATCH, path, object, 'application/apply-patch+yaml');
  };
}
export type KubeClients = ReturnType<typeof kubeClients>;

export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';

export type KindName =
  | 'Project'
  | 'Environment'
  | 'Webhook'
  | 'Bundle'
  | 'Preview'
  | 'Promotion'
  | 'StatusPage'
  | 'StatusComponent'
  | 'StatusNotice';

export function kindDefinition(kind: KindName): KindDefinition {
  const def = kinds.find((k) => k.kind === kind);
  if (!def) throw new Error(`unknown kind ${kind}`);
  return def;
}

/** The REST path of a kind, for informers: all namespaces when `namespace` is empty. */
export function kindPath(kind: KindName, namespace?: string): string {
  const { plural } = kindDefinition(kind);
  return namespace
    ? `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${plural}`
    : `/apis/${GROUP}/${VERSION}/${plural}`;
}

type Obj = { metadata: { name: string; namespace?: string } };

/** Typed access to Slipway's kinds. Objects are plain JSON as the API server returns them. */
/**
 * One JSON request to the API server, through the process's shared pool and credentials, with
 * undici's request(): about half the client CPU of the same call through client-node's
 * generated CustomObjectsApi (0.9 against 1.8-2.3 ms per Bundle create, measured), which runs
 * every body through its ObjectSerializer and an observable/promise middleware chain. A failed
 * call throws client-node's ApiException (code, body as text), like the generated clients.
 */
export async function jsonRequest<T>(
  kc: KubeConfig,
  method: HttpMethod,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<T> {
  const response = await send(kc, method, path, body, contentType);
  return JSON.parse(await response.body.text()) as T;
}

/** jsonRequest without the answer's body: read and parsed only when the call failed. */
async function send(
  kc: KubeConfig,
  method: HttpMethod,
  path: string,
  body: unknown,
  contentType: string,
): Promise<Dispatcher.ResponseData> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  const url = cluster.server + path;
  const context = new RequestContext(url, method);
  await kc.applySecurityAuthentication(context);
  const headers: Record<string, string> = { ...context.getHeaders(), accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await request(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: context.getDispatcher() as never,
  });
  if (response.statusCode < 200 || response.statusCode > 299) {
    const text = await response.body.text();
    throw new ApiException<string>(response.statusCode, `${method} ${path}`, text, {});
  }
  return response;
}

/** Slipway's own kinds over REST: list, get, create, merge-patch, status patch, delete. */
export function slipwayApi(kc: KubeConfig) {
  const base = (kind: KindName, namespace?: string) => {
    const { plural } = kindDefinition(kind);
    return namespace
      ? `/apis/${GROUP}/${VERSION}/namespaces/${encodeURIComponent(namespace)}/${plural}`
      : `/apis/${GROUP}/${VERSION}/${plural}`;
  };
  const creation = (kind: KindName, object: Obj): [string, object] => {
    const { namespace } = object.metadata;
    if (!namespace) throw new Error(`a ${kind} to create needs metadata.namespace`);
    return [base(kind, namespace), { apiVersion: `${GROUP}/${VERSION}`, kind, ...object }];
  };
  const one = (kind: KindName, namespace: string, name: string) =>
    `${base(kind, namespace)}/${encodeURIComponent(name)}`;
  return {
    async list<T>(kind: KindName, namespace?: string, labelSelector?: string): Promise<T[]> {
      const query = labelSelector ? `?labelSelector=${encodeURIComponent(labelSelector)}` : '';
      return (await jsonRequest<{ items: T[] }>(kc, HttpMethod.GET, base(kind, namespace) + query)).items;
    },
    get<T>(kind: KindName, namespace: string, name: string): Promise<T> {
      return jsonRequest<T>(kc, HttpMethod.GET, one(kind, namespace, name));
    },
    create<T extends Obj>(kind: KindName, object: T): Promise<T> {
      return jsonRequest<T>(kc, HttpMethod.POST, ...creation(kind, object));
    },
    /**
     * create() that keeps only the new object's uid (the gateway binds a bundle's public URL to
     * it): the stored object is not handed back.
     */
    async add(kind: KindName, object: Obj): Promise<string> {
      const response = await send(kc, HttpMethod.POST, ...creation(kind, object), 'application/json');
      const made = JSON.parse(await response.body.text()) as { metadata?: { uid?: string } };
      return made.metadata?.uid ?? '';
    },
    patch<T>(kind: KindName, namespace: string, name: string, body: unknown): Promise<T> {
      return jsonRequest<T>(kc, HttpMethod.PATCH, one(kind, namespace, name), body, MERGE_PATCH);
    },
    /** A JSON patch (RFC 6902): its `test` operations make the write conditional on those fields (422 otherwise). */
    jsonPatch<T>(kind: KindName, namespace: string, name: string, operations: unknown[]): Promise<T> {
      return jsonRequest<T>(kc, HttpMethod.PATCH, one(kind, namespace, name), operations, JSON_PATCH);
    },
    /**
     * Merge-patches the status. With `resourceVersion`, only if the object is still at that
     * version: otherwise 409, and nothing is written (optimistic concurrency).
     */
    patchStatus<T>(
      kind: KindName,
      namespace: string,
      name: string,
      status: unknown,
      resourceVersion?: string,
    ): Promise<T> {
      const path = `${one(kind, namespace, name)}/status`;
      const body = resourceVersion === undefined ? { status } : { metadata: { resourceVersion }, status };
      return jsonRequest<T>(kc, HttpMethod.PATCH, path, body, MERGE_PATCH);
    },
    async delete(kind: KindName, namespace: string, name: string): Promise<void> {
      await jsonRequest(kc, HttpMethod.DELETE, one(kind, namespace, name));
    },
  };
}
export type SlipwayApi = ReturnType<typeof slipwayApi>;

/** The HTTP status of a failed API call, or undefined for other errors. */
export function apiStatus(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}
export const isNotFound = (err: unknown) => apiStatus(err) === 404;

/** For `.catch()`: an object already gone is what a delete or a patch of housekeeping wanted. */
export const ignoreNotFound = (err: unknown): void => {
  if (!isNotFound(err)) throw err;
};
export const isConflict = (err: unknown) => apiStatus(err) === 409;
/** AlreadyExists is a 409 too; with deterministic names it means "already done". */
export const isAlreadyExists = (err: unknown) => apiStatus(err) === 409;

/** The API server's own message for a failed call (for example a CEL rule's message). */
export function apiMessage(err: unknown): string {
  const body = (err as { body?: unknown })?.body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: string };
      if (parsed.message) return parsed.message;
    } catch {
      return body;
    }
  }
  if (body && typeof body === 'object' && 'message' in body)
    return String((body as { message: unknown }).message);
  return err instanceof Error ? err.message : String(err);
}
