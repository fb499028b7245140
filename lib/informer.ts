// A watched, indexed cache of one resource type. client-node's ListWatch reconnects on clean
// closes and 410 but stops for good on any other error, so every error here restarts it with
// exponential backoff; the cache keeps serving its last state meanwhile.
import {
  HttpMethod,
  ListWatch,
  RequestContext,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { fetch as undiciFetch } from 'undici';
import type { Logger } from './log.ts';

export type IndexFn<T> = (obj: T) => string[];
export type EventHandler<T> = (obj: T, type: 'add' | 'update' | 'delete') => void;

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 30_000;

export const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

/** Anything with object metadata: client-node's types, or the plain JSON types of crds/. */
export type Watched = { metadata?: { name?: string; namespace?: string } };

export class Informer<T extends Watched> {
  private readonly listWatch: ListWatch<T & KubernetesObject>;
  private readonly indexers = new Map<string, IndexFn<T>>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private readonly indexedValues = new Map<string, Map<string, string[]>>();
  private readonly handlers: EventHandler<T>[] = [];
  private synced = false;
  private stopped = false;
  private backoffMs = BACKOFF_START_MS;
  private retry: NodeJS.Timeout | undefined;
  private failed = false;
  private whenSynced: (() => void) | undefined;

  readonly path: string;
  private readonly log: Logger;

  constructor(kc: KubeConfig, path: string, log: Logger, labelSelector?: string) {
    this.path = path;
    this.log = log;
    const list = () => listAll<T & KubernetesObject>(kc, path, labelSelector);
    this.listWatch = new ListWatch<T & KubernetesObject>(path, new Watch(kc), list, false, labelSelector);
    this.listWatch.on('add', (o) => this.changed(o, 'add'));
    this.listWatch.on('update', (o) => this.changed(o, 'update'));
    this.listWatch.on('delete', (o) => this.changed(o, 'delete'));
    this.listWatch.on('error', (err) => this.restartLater(err));
  }

  /** Indexes must be added before start(). */
  addIndex(name: string, fn: IndexFn<T>): this {
    this.indexers.set(name, fn);
    this.indexes.set(name, new Map());
    this.indexedValues.set(name, new Map());
    return this;
  }

  onEvent(handler: EventHandler<T>): this {
    this.handlers.push(handler);
    return this;
  }

  /**
   * Resolves once a first list has filled the cache. A failing list is retried with backoff
   * (ListWatch's own start() resolves even when its list failed, so success is tracked here).
   */
  start(): Promise<void> {
    this.stopped = false;
    return new Promise<void>((resolve) => {
      this.whenSynced = resolve;
      this.attempt();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.listWatch.stop();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  get(namespace: string, name: string): T | undefined {
    return this.listWatch.get(name, namespace);
  }

  list(namespace?: string): ReadonlyArray<T> {
    return this.listWatch.list(namespace);
  }

  byIndex(index: string, value: string): T[] {
    const keys = this.indexes.get(index)?.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const [namespace, name] = splitKey(key);
      const obj = this.listWatch.get(name, namespace);
      if (obj) out.push(obj);
    }
    return out;
  }

  private changed(obj: T, type: 'add' | 'update' | 'delete') {
    const key = objectKey(obj.metadata?.namespace, obj.metadata?.name ?? '');
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name)!;
      const values = this.indexedValues.get(name)!;
      for (const old of values.get(key) ?? []) {
        const set = index.get(old);
        set?.delete(key);
        if (set?.size === 0) index.delete(old);
      }
      if (type === 'delete') {
        values.delete(key);
        continue;
      }
      const now = fn(obj);
      values.set(key, now);
      for (const v of now) {
        let set = index.get(v);
        if (!set) index.set(v, (set = new Set()));
        set.add(key);
      }
    }
    for (const handler of this.handlers) handler(obj, type);
  }

  private attempt() {
    this.failed = false;
    void this.listWatch.start().then(() => {
      if (this.failed || this.stopped) return;
      this.backoffMs = BACKOFF_START_MS;
      this.synced = true;
      this.whenSynced?.();
      this.whenSynced = undefined;
    });
  }

  private restartLater(err: unknown) {
    this.failed = true;
    if (this.stopped) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.log.warn({ path: this.path, err: String(err), retryInMs: delay }, 'watch failed; restarting');
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.attempt(), delay);
    this.retry.unref();
  }
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** A paginated list through the raw REST path, so one informer type serves every kind. */
async function listAll<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  labelSelector?: string,
): Promise<KubernetesListObject<T>> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster in the kubeconfig');
  const items: T[] = [];
  let resourceVersion = '';
  let cont: string | undefined;
  do {
    const url = new URL(cluster.server + path);
    url.searchParams.set('limit', '500');
    if (cont) url.searchParams.set('continue', cont);
    if (labelSelector) url.searchParams.set('labelSelector', labelSelector);
    const res = await kubeFetch(kc, url);
    if (!res.ok) {
      const error = new Error(`list ${path}: HTTP ${res.status} ${await res.text()}`) as Error & {
        code: number;
      };
      error.code = res.status;
      throw error;
    }
    const page = (await res.json()) as {
      items: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    };
    items.push(...page.items);
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items };
}

/** fetch() with the kubeconfig's credentials and TLS settings, as client-node's Watch does it. */
export async function kubeFetch(
  kc: KubeConfig,
  url: URL,
  method: HttpMethod = HttpMethod.GET,
): Promise<Response> {
  const ctx = new RequestContext(url.toString(), method);
  await kc.applySecurityAuthentication(ctx);
  // undici's own fetch: the dispatcher client-node builds (TLS, client certificates) belongs to
  // its undici, which Node's built-in fetch does not accept.
  return undiciFetch(url, {
    method,
    headers: ctx.getHeaders(),
    dispatcher: ctx.getDispatcher() as never,
  }) as unknown as Promise<Response>;
}
