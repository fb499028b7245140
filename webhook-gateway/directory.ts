// The gateway's view of the cluster: Projects by slug, their Webhooks, their latest manual
// Bundle and their webhook Secret, all from informer caches — a delivery never lists anything.
import type { KubeConfig, KubernetesObject, V1Secret } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject, WebhookObject } from '../crds/index.ts';
import { Informer, objectKey } from '../lib/informer.ts';
import { isAlreadyExists, kindPath, type SlipwayApi } from '../lib/kube.ts';
import type { Logger } from '../lib/log.ts';
import type { BundleCreation, ProjectLookup } from './http/ports.ts';

type Cached<T> = T & KubernetesObject;
const BY_SLUG = 'slug';
const BY_PROJECT = 'project';

const projectKey = (o: { metadata?: { namespace?: string } }, name: string | undefined) =>
  name ? [objectKey(o.metadata?.namespace, name)] : [];

export class ProjectDirectory {
  private readonly projects: Informer<Cached<ProjectObject>>;
  private readonly webhooks: Informer<Cached<WebhookObject>>;
  private readonly bundles: Informer<Cached<BundleObject>>;
  private readonly secrets: Informer<V1Secret>;

  constructor(kc: KubeConfig, namespace: string | undefined, log: Logger) {
    // The operator publishes status.slug once the slug is the project's (not a SlugConflict).
    this.projects = new Informer<Cached<ProjectObject>>(kc, kindPath('Project', namespace), log).addIndex(
      BY_SLUG,
      (p) => [p.spec?.slug ?? p.metadata.name],
    );
    this.webhooks = new Informer<Cached<WebhookObject>>(kc, kindPath('Webhook', namespace), log).addIndex(
      BY_PROJECT,
      (w) => projectKey(w, w.spec?.projectRef?.name),
    );
    this.bundles = new Informer<Cached<BundleObject>>(kc, kindPath('Bundle', namespace), log).addIndex(
      BY_PROJECT,
      (b) => (b.spec?.trigger?.type === 'Manual' ? projectKey(b, b.spec.projectRef?.name) : []),
    );
    const secretsPath = namespace ? `/api/v1/namespaces/${namespace}/secrets` : '/api/v1/secrets';
    this.secrets = new Informer<V1Secret>(kc, secretsPath, log);
  }

  async start(): Promise<void> {
    await Promise.all([
      this.projects.start(),
      this.webhooks.start(),
      this.bundles.start(),
      this.secrets.start(),
    ]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.projects.stop(), this.webhooks.stop(), this.bundles.stop(), this.secrets.stop()]);
  }

  synced(): boolean {
    return [this.projects, this.webhooks, this.bundles, this.secrets].every((i) => i.hasSynced());
  }

  projectBySlug = (slug: string): ProjectLookup | undefined => {
    const candidates = this.projects.byIndex(BY_SLUG, slug);
    if (candidates.length === 0) return undefined;
    const owner = candidates.find((p) => p.status?.slug === slug && p.status.webhook);
    const project = owner ?? candidates[0]!;
    const { namespace, name, uid } = project.metadata;
    const key = objectKey(namespace, name);
    return {
      namespace,
      name,
      uid,
      // Not yet published by the operator (or a slug conflict): the gateway answers 503.
      secret: owner ? this.secret(namespace, owner.status!.webhook!.secretRef) : undefined,
      webhooks: this.webhooks.byIndex(BY_PROJECT, key),
      latestManualBundle: newest(this.bundles.byIndex(BY_PROJECT, key)),
    };
  };

  private secret(namespace: string, ref: { name: string; key: string }): string | undefined {
    const data = this.secrets.get(namespace, ref.name)?.data?.[ref.key];
    // An empty secret authenticates nothing: treat it as missing (503), never as "".
    const secret = data === undefined ? '' : Buffer.from(data, 'base64').toString('utf8');
    return secret === '' ? undefined : secret;
  }
}

/** Creates each Bundle; AlreadyExists means a redelivery already made it. */
export function bundleWriter(slipway: SlipwayApi) {
  return async (bundles: readonly BundleObject[]): Promise<BundleCreation[]> => {
    const results: BundleCreation[] = [];
    for (const bundle of bundles) {
      try {
        await slipway.create('Bundle', bundle as BundleObject & Record<string, unknown>);
        results.push({ name: bundle.metadata.name, result: 'created' });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        results.push({ name: bundle.metadata.name, result: 'duplicate' });
      }
    }
    return results;
  };
}

function newest<T extends { metadata: { creationTimestamp?: string; name: string } }>(
  list: T[],
): T | undefined {
  return list.reduce<T | undefined>((best, b) => {
    if (!best) return b;
    const a = b.metadata.creationTimestamp ?? '';
    const c = best.metadata.creationTimestamp ?? '';
    return a > c || (a === c && b.metadata.name > best.metadata.name) ? b : best;
  }, undefined);
}
