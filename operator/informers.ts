// The watched caches the operator's controllers share, with the indexes that map a change of
// one object to the objects that depend on it.
import type { KubeConfig, KubernetesObject, V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import type {
  BundleObject,
  EnvironmentObject,
  PreviewObject,
  PreviewReason,
  ProjectObject,
  PromotionObject,
  StatusComponentObject,
  StatusNoticeObject,
  StatusPageObject,
  WebhookObject,
} from '../crds/index.ts';
import { findCondition } from '../lib/conditions.ts';
import { Informer, objectKey, type Cached } from '../lib/informer.ts';
import { kindPath } from '../lib/kube.ts';
import type { Logger } from '../lib/log.ts';
import {
  LABEL_BUNDLE,
  LABEL_BUNDLE_NAMESPACE,
  LABEL_FINISHED,
  LABEL_PROJECT,
  LABEL_STEP,
  MANAGED_BY,
  labelValue,
} from '../crds/labels.ts';
import { MANAGER } from './names.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../rules/build-namespace.ts';
import { effectiveSlug } from '../rules/webhook-url.ts';
import { isFinished } from '../rules/bundle-outcome.ts';

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

const ns = (o: { metadata?: { namespace?: string } }) => o.metadata?.namespace ?? '';
/** The one key of INDEX.waitingForHost: a host let go anywhere may be the one a preview waits for. */
export const WAITING_FOR_HOST = 'all';
/** The host of a preview's URL (what INDEX.host keys). */
export const urlHost = (url: string) => url.replace(/^[a-z]+:\/\//, '').split('/')[0]!;
const ref = (o: { metadata?: { namespace?: string } }, name: string | undefined) =>
  name ? [objectKey(ns(o), name)] : [];

/**
 * What the operator reads of a Job or a pod is its metadata and status (state, conditions,
 * container states); their spec — a build Job carries its whole fetch script — is never read
 * from the cache, so it is not kept (5,000 cached build Jobs held 5,000 copies of the script).
 */
function metadataAndStatus<
  T extends { apiVersion?: string; kind?: string; metadata?: object; status?: object },
>(obj: T): T {
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: obj.metadata, status: obj.status } as T;
}

function builtinPath(group: string, resource: string, namespace: string | undefined): string {
  const base = group === 'v1' ? '/api/v1' : `/apis/${group}`;
  return namespace ? `${base}/namespaces/${namespace}/${resource}` : `${base}/${resource}`;
}

export interface OperatorInformers {
  projects: Informer<Cached<ProjectObject>>;
  environments: Informer<Cached<EnvironmentObject>>;
  webhooks: Informer<Cached<WebhookObject>>;
  bundles: Informer<Cached<BundleObject>>;
  /** Pull requests' previews, by project. */
  previews: Informer<Cached<PreviewObject>>;
  promotions: Informer<Cached<PromotionObject>>;
  /** Backup Jobs, in the bundles' namespaces. */
  jobs: Informer<V1Job>;
  /** Build Jobs, in the build namespace; INDEX.project keys are the bundles' namespaces. */
  buildJobs: Informer<V1Job>;
  deployments: Informer<V1Deployment>;
  /** The pods of bundles in their namespaces: their backup Jobs' pods and the pods of their rollouts. */
  pods: Informer<V1Pod>;
  /** The build Jobs' pods, in the build namespace; INDEX.bundle keys are the bundles' namespaces. */
  buildPods: Informer<V1Pod>;
  statusPages: Informer<Cached<StatusPageObject>>;
  statusComponents: Informer<Cached<StatusComponentObject>>;
  statusNotices: Informer<Cached<StatusNoticeObject>>;
}

const byStatusId = (o: { metadata?: { namespace?: string }; spec?: { id?: number } }) =>
  o.spec?.id === undefined ? [] : [objectKey(ns(o), String(o.spec.id))];

/** `base` and a shard's selector, as one label selector (comma: both must hold). */
const and = (base: string | undefined, selector: string | undefined) =>
  [base, selector].filter((s) => s !== undefined && s !== '').join(',') || undefined;

/** The namespace of the bundle a build Job or pod in the build namespace works for. */
const bundleNamespace = (o: { metadata?: { labels?: Record<string, string> } }) =>
  o.metadata?.labels?.[LABEL_BUNDLE_NAMESPACE] ?? '';
const ofBundle = (o: { metadata?: { labels?: Record<string, string> } }, label: string) => {
  const value = o.metadata?.labels?.[label];
  return value ? [objectKey(bundleNamespace(o), value)] : [];
};

export function createInformers(
  kc: KubeConfig,
  namespace: string | undefined,
  log: Logger,
  /** A shard's label selector (config.watchLabelSelector): its Bundles, Jobs, pods and status kinds (every Project is watched: shard.ts). */
  selector?: string,
  /** Where build Jobs run (config.buildNamespace): watched apart from the bundles' namespaces. */
  buildNamespace = DEFAULT_BUILD_NAMESPACE,
): OperatorInformers {
  // Watching every namespace, the build namespace is left to buildJobs and buildPods; watching
  // one, only its bundles' builds are watched there.
  const notBuilds = namespace ? undefined : `metadata.namespace!=${buildNamespace}`;
  const ofWatched = namespace ? `${LABEL_BUNDLE_NAMESPACE}=${namespace}` : undefined;
  const notEnded = 'status.phase!=Succeeded,status.phase!=Failed';
  const shard = { labelSelector: selector };
  const projects = new Informer<Cached<ProjectObject>>(kc, kindPath('Project', namespace), log).addIndex(
    INDEX.slug,
    (p) => [effectiveSlug(p)],
  );
  const environments = new Informer<Cached<EnvironmentObject>>(kc, kindPath('Environment', namespace), log)
    .addIndex(INDEX.project, (e) => ref(e, e.spec?.projectRef?.name))
    .addIndex(INDEX.deployment, (e) => ref(e, e.spec?.deploymentRef?.name))
    .addIndex(INDEX.promoteFrom, (e) => ref(e, e.spec?.promoteFrom?.environmentRef?.name));
  const webhooks = new Informer<Cached<WebhookObject>>(kc, kindPath('Webhook', namespace), log)
    .addIndex(INDEX.project, (w) => ref(w, w.spec?.projectRef?.name))
    .addIndex(INDEX.environment, (w) => ref(w, w.spec?.environmentRef?.name));
  const bundles = new Informer<Cached<BundleObject>>(kc, kindPath('Bundle', namespace), log, shard)
    .addIndex(INDEX.project, (b) => ref(b, b.spec?.projectRef?.name))
    .addIndex(INDEX.unfinishedOfProject, (b) => (isFinished(b) ? [] : ref(b, b.spec?.projectRef?.name)))
    .addIndex(INDEX.queuedInNamespace, (b) => (b.status?.phase === 'Queued' ? [ns(b)] : []))
    .addIndex(INDEX.unfinishedOfEnvironment, (b) =>
      isFinished(b) ? [] : ref(b, b.spec?.deploy?.environmentRef?.name),
    )
    .addIndex(INDEX.webhook, (b) => ref(b, b.spec?.trigger?.webhookRef?.name))
    .addIndex(INDEX.bundleLabel, (b) => ref(b, labelValue(b.metadata.name)))
    .addIndex(INDEX.preview, (b) => ref(b, b.spec?.trigger?.previewRef?.name));
  const previews = new Informer<Cached<PreviewObject>>(kc, kindPath('Preview', namespace), log, shard)
    .addIndex(INDEX.project, (p) => ref(p, p.spec?.projectRef?.name))
    .addIndex(INDEX.host, (p) => (p.status?.url ? [urlHost(p.status.url)] : []))
    .addIndex(INDEX.waitingForHost, (p) =>
      findCondition(p.status?.conditions, 'Ready')?.reason === ('HostTaken' satisfies PreviewReason)
        ? [WAITING_FOR_HOST]
        : [],
    );
  const ended = (p: PromotionObject) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
  // People make Promotions without a shard label: every one is watched, and a shard acts for its Projects' (like Projects).
  const promotions = new Informer<Cached<PromotionObject>>(kc, kindPath('Promotion', namespace), log)
    .addIndex(INDEX.project, (p) => ref(p, p.spec?.projectRef?.name))
    .addIndex(INDEX.promotionEnvironment, (p) =>
      ended(p)
        ? []
        : [p.spec?.from?.environmentRef?.name, p.spec?.to?.environmentRef?.name].flatMap((e) => ref(p, e)),
    );
  // Only the Jobs this operator made, but not those of finished bundles (bundle/retire.ts).
  const unfinishedJobs = `${MANAGED_BY}=${MANAGER},${LABEL_FINISHED}!=true`;
  const jobs = new Informer<V1Job>(kc, builtinPath('batch/v1', 'jobs', namespace), log, {
    labelSelector: and(unfinishedJobs, selector),
    fieldSelector: notBuilds,
    transform: metadataAndStatus,
  });
  const buildJobs = new Informer<V1Job>(kc, builtinPath('batch/v1', 'jobs', buildNamespace), log, {
    labelSelector: and(and(`${unfinishedJobs},${LABEL_STEP}=build`, ofWatched), selector),
    transform: metadataAndStatus,
  })
    .addIndex(INDEX.project, (j) => ofBundle(j, LABEL_PROJECT))
    .addIndex(INDEX.buildsOfNamespace, (j) => (bundleNamespace(j) ? [bundleNamespace(j)] : []));
  const deployments = new Informer<V1Deployment>(kc, builtinPath('apps/v1', 'deployments', namespace), log);
  // Only pods that carry a bundle's label (Job pods and the pods of a rollout the operator started)
  // and have not ended: what the operator reads of pods is why a live one cannot run. An ended
  // pod leaves the watch (the API server sends DELETED), so finished bundles' pods are not kept.
  const pods = new Informer<V1Pod>(kc, builtinPath('v1', 'pods', namespace), log, {
    labelSelector: and(LABEL_BUNDLE, selector),
    fieldSelector: notBuilds ? `${notEnded},${notBuilds}` : notEnded,
    transform: metadataAndStatus,
  }).addIndex(INDEX.bundle, (p) => ref(p, p.metadata?.labels?.[LABEL_BUNDLE]));
  const buildPods = new Informer<V1Pod>(kc, builtinPath('v1', 'pods', buildNamespace), log, {
    labelSelector: and(and(LABEL_BUNDLE, ofWatched), selector),
    fieldSelector: notEnded,
    transform: metadataAndStatus,
  }).addIndex(INDEX.bundle, (p) => ofBundle(p, LABEL_BUNDLE));
  const statusPages = new Informer<Cached<StatusPageObject>>(
    kc,
    kindPath('StatusPage', namespace),
    log,
    shard,
  );
  const statusComponents = new Informer<Cached<StatusComponentObject>>(
    kc,
    kindPath('StatusComponent', namespace),
    log,
    shard,
  )
    .addIndex(INDEX.parent, (c) => ref(c, c.spec?.parentRef?.name))
    .addIndex(INDEX.statusId, byStatusId);
  const statusNotices = new Informer<Cached<StatusNoticeObject>>(
    kc,
    kindPath('StatusNotice', namespace),
    log,
    shard,
  )
    .addIndex(INDEX.component, (n) => (n.spec?.componentRefs ?? []).map((r) => objectKey(ns(n), r.name)))
    .addIndex(INDEX.statusId, byStatusId);
  return {
    projects,
    environments,
    webhooks,
    bundles,
    previews,
    promotions,
    jobs,
    buildJobs,
    deployments,
    pods,
    buildPods,
    statusPages,
    statusComponents,
    statusNotices,
  };
}

export function allInformers(i: OperatorInformers): Array<Informer<KubernetesObject>> {
  return [
    i.projects,
    i.environments,
    i.webhooks,
    i.bundles,
    i.previews,
    i.promotions,
    i.jobs,
    i.buildJobs,
    i.deployments,
    i.pods,
    i.buildPods,
    i.statusPages,
    i.statusComponents,
    i.statusNotices,
  ] as Array<Informer<KubernetesObject>>;
}
