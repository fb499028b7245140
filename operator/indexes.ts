// What every kind's informers are made with (operator/<kind>/informers.ts, put together by
// informers.ts): the index names that map a change of one object to the objects that depend on
// it, and the scope every informer watches (the namespace, the shard, the build namespace).
import type { KubeConfig } from '@kubernetes/client-node';
import { Informer, objectKey, type Cached, type InformerOptions, type Watched } from '../lib/informer.ts';
import { kindPath, type KindName } from '../lib/kube.ts';
import type { Logger } from '../lib/log.ts';
import { LABEL_BUNDLE_NAMESPACE } from '../crds/labels.ts';

export const INDEX = {
  slug: 'slug',
  project: 'project',
  environment: 'environment',
  deployment: 'deployment',
  webhook: 'webhook',
  bundle: 'bundle',
  /** A bundle by the Preview it builds (trigger.previewRef). */
  preview: 'preview',
  /** A Promotion by each environment it names (from and to), while it has not ended. */
  promotionEnvironment: 'promotionEnvironment',
  /** An Environment by the one its spec.promoteFrom names. */
  promoteFrom: 'promoteFrom',
  /**
   * A bundle that has not finished, by its project or its environment: what watches.ts enqueues
   * when something they wait on changes, without a walk over every finished bundle (a project
   * keeps up to its bundleHistoryLimit of them).
   */
  unfinishedOfProject: 'unfinishedOfProject',
  /** A build Job by the namespace of its bundle: the builds a namespace runs. */
  buildsOfNamespace: 'buildsOfNamespace',
  /** A bundle waiting for a build slot (Queued) by its namespace: what a build that ends there wakes. */
  queuedInNamespace: 'queuedInNamespace',
  unfinishedOfEnvironment: 'unfinishedOfEnvironment',
  /** A bundle by the value of its `slipway.dev/bundle` label (its name, shortened to 63 characters). */
  bundleLabel: 'bundleLabel',
  /** A status component by its parent component. */
  parent: 'parent',
  /** A status notice by each component it names. */
  component: 'component',
  /** A status component or notice by `namespace/id`: the holders of an id without a scan. */
  statusId: 'statusId',
  /**
   * A Preview by the host of its status.url: who serves a host already, in any namespace this
   * operator watches (a host is one namespace's at a time).
   */
  host: 'host',
  /** Previews waiting for a host another preview has (Ready HostTaken), all under WAITING_FOR_HOST. */
  waitingForHost: 'waitingForHost',
} as const;

export const ns = (o: { metadata?: { namespace?: string } }) => o.metadata?.namespace ?? '';
/** The one key of INDEX.waitingForHost: a host let go anywhere may be the one a preview waits for. */
export const WAITING_FOR_HOST = 'all';
/** The host of a preview's URL (what INDEX.host keys). */
export const urlHost = (url: string) => url.replace(/^[a-z]+:\/\//, '').split('/')[0]!;
/** `namespace/name` of the object `o`'s field names, in o's namespace (an index key), if it names one. */
export const ref = (o: { metadata?: { namespace?: string } }, name: string | undefined) =>
  name ? [objectKey(ns(o), name)] : [];

/**
 * What the operator reads of a Job or a pod is its metadata and status (state, conditions,
 * container states); their spec — a build Job carries its whole fetch script — is never read
 * from the cache, so it is not kept (5,000 cached build Jobs held 5,000 copies of the script).
 */
export function metadataAndStatus<
  T extends { apiVersion?: string; kind?: string; metadata?: object; status?: object },
>(obj: T): T {
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: obj.metadata, status: obj.status } as T;
}

/** `base` and a shard's selector, as one label selector (comma: both must hold). */
export const and = (base: string | undefined, selector: string | undefined) =>
  [base, selector].filter((s) => s !== undefined && s !== '').join(',') || undefined;

/** The namespace of the bundle a build Job or pod in the build namespace works for. */
export const bundleNamespace = (o: { metadata?: { labels?: Record<string, string> } }) =>
  o.metadata?.labels?.[LABEL_BUNDLE_NAMESPACE] ?? '';

/** Where and what the operator watches, and how its informers are made. */
export interface InformerScope {
  kc: KubeConfig;
  log: Logger;
  /** The watched namespace; every namespace when undefined. */
  namespace: string | undefined;
  /** A shard's label selector (config.watchLabelSelector). */
  selector: string | undefined;
  /** Where build Jobs run (config.buildNamespace): watched apart from the bundles' namespaces. */
  buildNamespace: string;
  /** One of Slipway's kinds in the watched namespace; `sharded`: only the shard's objects. */
  kind<T extends Watched>(kind: KindName, sharded?: boolean): Informer<Cached<T>>;
  /** A built-in resource (`v1` pods, `batch/v1` jobs) in `namespace` (every namespace when undefined). */
  builtin<T extends Watched>(
    group: string,
    resource: string,
    namespace: string | undefined,
    options?: InformerOptions<T>,
  ): Informer<T>;
}

export function informerScope(
  kc: KubeConfig,
  namespace: string | undefined,
  log: Logger,
  selector: string | undefined,
  buildNamespace: string,
): InformerScope {
  return {
    kc,
    log,
    namespace,
    selector,
    buildNamespace,
    kind: <T extends Watched>(kind: KindName, sharded = false) =>
      new Informer<Cached<T>>(
        kc,
        kindPath(kind, namespace),
        log,
        sharded ? { labelSelector: selector } : undefined,
      ),
    builtin: <T extends Watched>(
      group: string,
      resource: string,
      where: string | undefined,
      options?: InformerOptions<T>,
    ) => {
      const base = group === 'v1' ? '/api/v1' : `/apis/${group}`;
      const path = where ? `${base}/namespaces/${where}/${resource}` : `${base}/${resource}`;
      return new Informer<T>(kc, path, log, options);
    },
  };
}
