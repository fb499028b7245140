// The gateway's adapter to the cluster: Projects by slug, their Webhooks and their latest manual
// Bundle from informer caches — a delivery never lists anything — and each project's webhook
// Secret, read by name behind a short cache (lib/secret-reader.ts): the gateway cannot list Secrets.
import { LABEL_BUNDLE_UID, LABEL_SHARD } from '../crds/labels.ts';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject, WebhookObject } from '../crds/index.ts';
import { projectProvider } from '../providers/index.ts';
import { archiveKeyFromPath } from '../rules/archive-url.ts';
import { newest } from '../rules/bundle-order.ts';
import { effectiveSlug, webhookSecretRef } from '../rules/webhook-url.ts';
import { recentlyPruned } from '../rules/pruned-bundles.ts';
import { Informer, objectKey, type Cached } from '../lib/informer.ts';
import { isAlreadyExists, kindPath, type SlipwayApi } from '../lib/kube.ts';
import type { Logger } from '../lib/log.ts';
import { SecretReader } from '../lib/secret-reader.ts';
import { readPodLogs, type PodLogs } from '../lib/pod-logs.ts';
import { LOG_LIMIT_BYTES, SECRET_CACHE_TTL_MS, SECRET_MISSING_TTL_MS, SECRET_STALE_MS } from './limits.ts';
import { PartialCreationError, type BundleCreation, type ProjectLookup } from './http/ports.ts';
import { otherBuild } from './plan.ts';

const BY_SLUG = 'slug';
const BY_PROJECT = 'project';

const projectKey = (o: { metadata?: { namespace?: string } }, name: string | undefined) =>
  name ? [objectKey(o.metadata?.namespace, name)] : [];

export class ClusterAdapter {
  private readonly projects: Informer<Cached<ProjectObject>>;
  private readonly webhooks: Informer<Cached<WebhookObject>>;
  private readonly bundles: Informer<Cached<BundleObject>>;
  private readonly secrets: SecretReader;
  private readonly core: CoreV1Api;

  constructor(kc: KubeConfig, namespace: string | undefined, log: Logger) {
    // The operator publishes status.slug once the slug is the project's (not a SlugConflict).
    this.projects = new Informer<Cached<ProjectObject>>(kc, kindPath('Project', namespace), log).addIndex(
      BY_SLUG,
      (p) => [effectiveSlug(p)],
    );
    this.webhooks = new Informer<Cached<WebhookObject>>(kc, kindPath('Webhook', namespace), log).addIndex(
      BY_PROJECT,
      (w) => projectKey(w, w.spec?.projectRef?.name),
    );
    this.bundles = new Informer<Cached<BundleObject>>(kc, kindPath('Bundle', namespace), log).addIndex(
      BY_PROJECT,
      (b) => (b.spec?.trigger?.type === 'Manual' ? projectKey(b, b.spec.projectRef?.name) : []),
    );
    this.core = kc.makeApiClient(CoreV1Api);
    this.secrets = new SecretReader(this.core, log, {
      ttlMs: SECRET_CACHE_TTL_MS,
      missingTtlMs: SECRET_MISSING_TTL_MS,
      staleMs: SECRET_STALE_MS,
    });
  }

  /**
   * The logs of a build Job's pods, read from the API server (a bundle's logs URL): one list and
   * a read per started container, each log's first LOG_LIMIT_BYTES.
   */
  readonly buildLogs = async (namespace: string, job: string, bundleUid: string): Promise<PodLogs[]> => {
    const { items } = await this.core.listNamespacedPod({
      namespace,
      labelSelector: `batch.kubernetes.io/job-name=${job},${LABEL_BUNDLE_UID}=${bundleUid}`,
    });
    return readPodLogs(this.core, items, LOG_LIMIT_BYTES);
  };

  /** A bundle from the cache (for its status URL): no API call. */
  readonly bundleByName = (namespace: string, name: string): BundleObject | undefined =>
    this.bundles.get(namespace, name);

  /**
   * The archive keys Bundles refer to; undefined until the cache is synced (an empty cache must
   * never make stored archives look unused).
   */
  readonly referencedArchiveKeys = (): ReadonlySet<string> | undefined => {
    if (!this.synced()) return undefined;
    const keys = new Set<string>();
    for (const b of this.bundles.list()) {
      const url = b.spec?.source?.archive?.url;
      const key = url === undefined ? undefined : archiveKeyFromPath(new URL(url, 'http://x').pathname);
      if (key) keys.add(key);
    }
    return keys;
  };

  async start(): Promise<void> {
    await Promise.all([this.projects.start(), this.webhooks.start(), this.bundles.start()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.projects.stop(), this.webhooks.stop(), this.bundles.stop()]);
  }

  synced(): boolean {
    return [this.projects, this.webhooks, this.bundles].every((i) => i.hasSynced());
  }

  projectBySlug = async (slug: string): Promise<ProjectLookup | undefined> => {
    const candidates = this.projects.byIndex(BY_SLUG, slug);
    if (candidates.length === 0) return undefined;
    // The operator publishes status.webhook once the slug is the project's and its Secret is
    // sound; the Secret itself is the one the spec names (not status, which is only a sign).
    const owner = candidates.find((p) => p.status?.slug === slug && p.status.webhook);
    const project = owner ?? candidates[0]!;
    const { namespace, name, uid } = project.metadata;
    const key = objectKey(namespace, name);
    const ref = owner ? webhookSecretRef(owner) : undefined;
    return {
      namespace,
      name,
      uid,
      shard: project.metadata.labels?.[LABEL_SHARD],
      // Not yet published by the operator (or a slug conflict): answered as an unknown project (404).
      secret: ref ? await this.secrets.value(namespace, ref.name, ref.key) : undefined,
      provider: projectProvider(project.spec),
      requireSignature: project.spec.requireSignature === true,
      ...(project.spec.suspend ? { suspended: true } : {}),
      webhooks: this.webhooks.byIndex(BY_PROJECT, key),
      latestManualBundle: newest(this.bundles.byIndex(BY_PROJECT, key)),
      prunedBundles: recentlyPruned(project.status?.prunedBundles, new Date()),
      ...(project.spec.previews ? { previews: project.spec.previews } : {}),
    };
  };
}

/**
 * Creates each Bundle; AlreadyExists means a redelivery already made it, when the bundle under
 * that name is the same build. It is looked up in `cached` (the gateway's informer), and read
 * live only when the cache does not hold it yet.
 */
export function bundleWriter(
  slipway: SlipwayApi,
  cached: (namespace: string, name: string) => BundleObject | undefined = () => undefined,
) {
  return async (bundles: readonly BundleObject[]): Promise<BundleCreation[]> => {
    const results: BundleCreation[] = [];
    // What is made stays made: an error after some creations says which (their archives stay).
    const failed = (err: unknown) => {
      const created = results.filter((r) => r.result === 'created').map((r) => r.name);
      return created.length > 0 ? new PartialCreationError(created, err) : err;
    };
    for (const bundle of bundles) {
      const { namespace, name } = bundle.metadata;
      try {
        results.push({ name, uid: await slipway.add('Bundle', bundle), result: 'created' });
        continue;
      } catch (err) {
        if (!isAlreadyExists(err)) throw failed(err);
      }
      // Gone again (pruned) or unreadable: a retry of the delivery decides.
      const existing =
        cached(namespace, name) ??
        (await slipway.get<BundleObject>('Bundle', namespace, name).catch((err: unknown) => {
          throw failed(err);
        }));
      const conflict = otherBuild(existing, bundle);
      const uid = existing.metadata.uid ?? '';
      results.push(
        conflict ? { name, uid, result: 'conflict', conflict } : { name, uid, result: 'duplicate' },
      );
    }
    return results;
  };
}
