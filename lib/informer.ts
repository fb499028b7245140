// A watched, indexed cache of one resource type. client-node's ListWatch reconnects on clean
// closes and 410 but stops for good on any other error, so every error here restarts it with
// exponential backoff; the cache keeps serving its last state meanwhile.
import {
  HttpMethod,
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { apiStatus, jsonRequest } from './kube.ts';
import type { Logger } from './log.ts';

export type IndexFn<T> = (obj: T) => string[];
export type EventHandler<T> = (obj: T, type: 'add' | 'update' | 'delete') => void;
/**
 * Shapes each object before it is cached (client-go's SetTransform): what a process never reads
 * need not be kept. It must keep metadata.name, namespace and resourceVersion.
 */
export type Transform<T> = (obj: T) => T;

/** Which objects a watch selects (the API server's labelSelector and fieldSelector parameters). */
export interface Selectors {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface InformerOptions<T> extends Selectors {
  transform?: Transform<T>;
  /** Keep metadata.managedFields (the status API reads the time of the last spec change there). */
  keepManagedFields?: boolean;
}

/** kubectl's copy of the whole applied object: no process reads it. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Every cached object loses its managedFields and kubectl's last-applied copy (controller-
 * runtime's TransformStripManagedFields): together often larger than the object itself, and
 * read by nothing here. The metadata is copied without them rather than `delete`d from: V8 turns
 * an object that loses a property into a hash table (dictionary mode), about 400 bytes more for a
 * Bundle's metadata, times every cached object.
 */
export function withoutBookkeeping<T extends Watched>(obj: T, keepManagedFields = false): T {
  const metadata = obj.metadata as (Watched['metadata'] & CachedMetadata) | undefined;
  if (!metadata) return obj;
  const dropFields = !keepManagedFields && 'managedFields' in metadata;
  const annotations = metadata.annotations;
  const dropApplied = annotations !== undefined && LAST_APPLIED in annotations;
  if (!dropFields && !dropApplied) return obj;
  const { managedFields, annotations: _annotations, ...rest } = metadata;
  const kept: Record<string, unknown> & CachedMetadata = rest;
  if (!dropFields && 'managedFields' in metadata) kept.managedFields = managedFields;
  if (annotations) {
    const { [LAST_APPLIED]: _applied, ...others } = annotations;
    if (Object.keys(others).length > 0) kept.annotations = others;
  }
  return { ...obj, metadata: kept };
}

interface CachedMetadata {
  managedFields?: unknown;
  annotations?: Record<string, string>;
}

const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 30_000;

export const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

/** Anything with object metadata: client-node's types, or the plain JSON types of crds/. */
export type Watched = { metadata?: { name?: string; namespace?: string } };

/** Our kinds' stored shape, as client-node's KubernetesObject bound wants it. */
export type Cached<T> = T & KubernetesObject;

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
  private listAbort: AbortController | undefined;

  readonly path: string;
  private readonly log: Logger;

  constructor(kc: KubeConfig, path: string, log: Logger, options: InformerOptions<T> = {}) {
    this.path = path;
    this.log = log;
    const { labelSelector, fieldSelector } = options;
    const selectors: Selectors = { labelSelector, fieldSelector };
    const { transform: extra, keepManagedFields } = options;
    const shape = (obj: T & KubernetesObject) => {
      const kept = withoutBookkeeping(obj, keepManagedFields);
      return (extra ? extra(kept) : kept) as T & KubernetesObject;
    };
    const list = () => {
      // stop() aborts a first watch-list still streaming (ListWatch cannot).
      const abort = (this.listAbort = new AbortController());
      return initialState<T & KubernetesObject>(kc, path, shape, selectors, log, abort.signal);
    };
    this.listWatch = new ListWatch<T & KubernetesObject>(
      path,
      shapedWatch(new Watch(kc), shape),
      list,
      false,
      labelSelector,
      fieldSelector,
    );
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
    this.listAbort?.abort();
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
      const now = type === 'delete' ? [] : fn(obj);
      // Only objects the index names: most finished bundles are in no index of unfinished ones.
      if (now.length === 0) {
        values.delete(key);
        continue;
      }
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
    // While a start() is waiting on the first list, the retry keeps the process alive: a tool or
    // benchmark awaiting it would otherwise exit with nothing left to run.
    if (this.synced) this.retry.unref();
  }
}

/** A Watch whose ADDED, MODIFIED and DELETED objects are shaped before ListWatch caches them. */
function shapedWatch<O extends KubernetesObject>(watch: Watch, shape: (obj: O) => O): Watch {
  const shaped = Object.create(watch) as Watch;
  shaped.watch = (path, params, callback, done) =>
    watch.watch(
      path,
      params,
      (phase, obj: O, raw) =>
        callback(
          phase,
          phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED' ? shape(obj) : obj,
          raw,
        ),
      done,
    );
  return shaped;
}

function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** The bookmark that ends a watch-list stream's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

type InitialState<T extends KubernetesObject> = KubernetesListObject<T>;

/**
 * What the cache starts from: a watch-list stream (the API server's WatchList, beta and on by
 * default since Kubernetes 1.32, what client-go's reflectors use): every object streamed from
 * the watch cache as one ADDED event, shaped as it arrives, up to a bookmark marking the end.
 * Paginated lists hold a page of full objects (500 build Jobs: megabytes of JSON, with their
 * scripts) as text, then objects, before shaping; this never holds more than one. An API
 * server without WatchList refuses the parameters (400/422): then the paginated list.
 */
async function initialState<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  shape: (obj: T) => T,
  selectors: Selectors,
  log: Logger,
  signal: AbortSignal,
): Promise<InitialState<T>> {
  try {
    return await watchList(kc, path, shape, selectors, signal);
  } catch (err) {
    // A refused watch says statusCode (client-node's Watch), an ERROR event code (apiStatus).
    const status = (err as { statusCode?: number }).statusCode ?? apiStatus(err);
    if (status !== 400 && status !== 422) throw err;
    log.info({ path, status }, 'the API server has no watch-list streams; listing in pages');
    return listAll(kc, path, shape, selectors);
  }
}

function watchList<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  shape: (obj: T) => T,
  selectors: Selectors,
  signal: AbortSignal,
): Promise<InitialState<T>> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    let settled = false;
    let controller: AbortController | undefined;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', stopped);
      controller?.abort();
      outcome();
    };
    const stopped = () => settle(() => reject(new Error(`watch-list ${path}: stopped`)));
    if (signal.aborted) return stopped();
    signal.addEventListener('abort', stopped);
    const params = {
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
      ...selectors,
    };
    void new Watch(kc)
      .watch(
        path,
        params,
        (phase, obj: T & { code?: number; message?: string }) => {
          if (settled) return;
          if (phase === 'ADDED') items.push(shape(obj));
          else if (phase === 'BOOKMARK' && obj.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
            const resourceVersion = obj.metadata.resourceVersion ?? '';
            settle(() => resolve({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items }));
          } else if (phase === 'ERROR') {
            const error = Object.assign(new Error(`watch-list ${path}: ${obj.message ?? 'error'}`), {
              code: obj.code,
            });
            settle(() => reject(error));
          }
        },
        (err: unknown) =>
          settle(() =>
            reject(err ?? new Error(`watch-list ${path}: closed before its initial events ended`)),
          ),
      )
      .then(
        (c) => {
          controller = c;
          if (settled) c.abort();
        },
        // Before any request (no cluster, credentials that cannot be read): the list fails and
        // ListWatch's error path retries it with backoff.
        (err: unknown) => settle(() => reject(err)),
      );
  });
}

/** A paginated list through the raw REST path, so one informer type serves every kind; each item shaped. */
async function listAll<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  shape: (obj: T) => T,
  selectors: Selectors = {},
): Promise<KubernetesListObject<T>> {
  const items: T[] = [];
  let resourceVersion = '';
  let cont: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '500' });
    if (cont) query.set('continue', cont);
    for (const [name, value] of Object.entries(selectors)) if (value) query.set(name, value);
    const page = await jsonRequest<{
      items: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    }>(kc, HttpMethod.GET, `${path}?${query}`);
    // Shaped page by page: a page's full objects are garbage before the next one is read.
    for (const item of page.items) items.push(shape(item));
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion }, items };
}
