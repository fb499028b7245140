// What a build in the build namespace needs beside its Job (docs/adr/0004): the Bundle's
// finalizer, since an owner reference cannot cross namespaces; copies of the Secrets the build
// mounts (clone credentials, registry push and pull credentials), since a pod mounts only its
// own namespace's Secrets; and the release of all of it when the bundle goes.
import type { V1Secret } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { FINALIZER_BUILD, LABEL_BUNDLE_NAMESPACE, LABEL_BUNDLE_UID } from '../../crds/labels.ts';
import { ignoreNotFound, isAlreadyExists, isConflict, isNotFound } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';
import { buildJobLabels, buildJobName, buildSecretName, type BuildSecretUse } from '../names.ts';

const BUILD_SECRET_USES: readonly BuildSecretUse[] = ['git', 'push', 'pull'];

/**
 * Adds the finalizer before the build Job is made, so the Job and its Secrets are removed when
 * the bundle is; returns the bundle as patched (its new resourceVersion), or as it was.
 */
export async function holdForBuild(ctx: OperatorContext, bundle: BundleObject): Promise<BundleObject> {
  const add = (b: BundleObject) => {
    const finalizers = b.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER_BUILD)) return Promise.resolve(b);
    const { namespace, name, resourceVersion } = b.metadata;
    // At the version read: another writer's finalizers are never dropped.
    return ctx.slipway.patch<BundleObject>('Bundle', namespace, name, {
      metadata: { finalizers: [...finalizers, FINALIZER_BUILD], resourceVersion },
    });
  };
  try {
    return await add(bundle);
  } catch (err) {
    // The cache lags behind a write (this process's own status write, often): once more, live.
    if (!isConflict(err)) throw err;
    return add(
      await ctx.slipway.get<BundleObject>('Bundle', bundle.metadata.namespace, bundle.metadata.name),
    );
  }
}

/** The bundle's Secrets a build mounts, by use, in the bundle's namespace (those configured). */
function sourceSecrets(
  ctx: OperatorContext,
  bundle: BundleObject,
  project: ProjectObject,
): Partial<Record<BuildSecretUse, string>> {
  const { registryPushSecret, registryPullSecret } = ctx.config;
  const clone = bundle.spec.source.git ? project.spec.repository?.credentialsSecretRef?.name : undefined;
  // The build container, where a fork's code runs beside BuildKit (no process sandbox), gets no
  // registry credential of the namespace: a fork's base and builder images must pull without.
  // Push credentials reach only the push containers, which run after it and run no user code.
  const fork = bundle.spec.trigger.fork === true;
  return {
    ...(clone ? { git: clone } : {}),
    ...(registryPushSecret ? { push: registryPushSecret } : {}),
    ...(registryPullSecret && !fork ? { pull: registryPullSecret } : {}),
  };
}

/**
 * Copies the Secrets the build mounts into the build namespace, named after its Job; returns the
 * copies' names by use. A registry Secret the bundle's namespace lacks is skipped (the build
 * pushes or pulls without credentials, as before builds moved); missing clone credentials stop
 * the build (the Project reports CredentialsSecretNotFound, which holds its git bundles).
 */
export async function copyBuildSecrets(
  ctx: OperatorContext,
  bundle: BundleObject,
  project: ProjectObject,
): Promise<Partial<Record<BuildSecretUse, string>>> {
  const { core } = ctx.clients;
  const { buildNamespace } = ctx.config;
  const namespace = bundle.metadata.namespace;
  const job = buildJobName(namespace, bundle.metadata.name);
  const copies: Partial<Record<BuildSecretUse, string>> = {};
  for (const [use, name] of Object.entries(sourceSecrets(ctx, bundle, project)) as [
    BuildSecretUse,
    string,
  ][]) {
    let source: V1Secret;
    try {
      source = await core.readNamespacedSecret({ name, namespace });
    } catch (err) {
      if (isNotFound(err) && use !== 'git') continue;
      throw err;
    }
    const copy: V1Secret = {
      metadata: {
        name: buildSecretName(job, use),
        namespace: buildNamespace,
        labels: buildJobLabels(bundle),
      },
      type: source.type,
      data: source.data,
    };
    try {
      await core.createNamespacedSecret({ namespace: buildNamespace, body: copy });
    } catch (err) {
      // An earlier attempt (before a restart) made it from the same Secret.
      if (!isAlreadyExists(err)) throw err;
    }
    copies[use] = copy.metadata!.name!;
  }
  return copies;
}

/** Deletes the copies of a build's Secrets: the build has ended, or its bundle is going. */
export async function deleteBuildSecrets(
  ctx: OperatorContext,
  namespace: string,
  bundle: string,
): Promise<void> {
  const { buildNamespace } = ctx.config;
  const job = buildJobName(namespace, bundle);
  for (const use of BUILD_SECRET_USES)
    await ctx.clients.core
      .deleteNamespacedSecret({ name: buildSecretName(job, use), namespace: buildNamespace })
      .catch(ignoreNotFound);
}

/**
 * A deleted bundle's build: deletes its Secrets and its Job (a background delete: the Job is gone
 * at once, the garbage collector takes its pods, and a pod stuck on a lost node never holds the
 * bundle), then removes the finalizer, in one pass.
 */
export async function releaseBuild(ctx: OperatorContext, bundle: BundleObject): Promise<void> {
  const finalizers = bundle.metadata.finalizers ?? [];
  if (!finalizers.includes(FINALIZER_BUILD)) return;
  const { namespace, name, resourceVersion, uid } = bundle.metadata;
  // Copies made before a crash kept the Job from being created are deleted too.
  await deleteBuildSecrets(ctx, namespace, name);
  await deleteBuildJob(ctx, namespace, name, uid);
  await ctx.slipway.patch('Bundle', namespace, name, {
    metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER_BUILD), resourceVersion },
  });
}

/**
 * Deletes the build Job of bundle `namespace/name` when its labels name that bundle (with `uid`;
 * any uid when undefined). Returns whether such a Job was still there.
 */
async function deleteBuildJob(
  ctx: OperatorContext,
  namespace: string,
  name: string,
  uid: string | undefined,
): Promise<boolean> {
  const { batch } = ctx.clients;
  const { buildNamespace } = ctx.config;
  const job = buildJobName(namespace, name);
  const present = await batch
    .readNamespacedJob({ name: job, namespace: buildNamespace })
    .then((j) => {
      const labels = j.metadata?.labels ?? {};
      return (
        labels[LABEL_BUNDLE_NAMESPACE] === namespace &&
        (uid === undefined || labels[LABEL_BUNDLE_UID] === uid)
      );
    })
    .catch((err: unknown) => {
      if (isNotFound(err)) return false;
      throw err;
    });
  if (!present) return false;
  await batch
    .deleteNamespacedJob({ name: job, namespace: buildNamespace, propagationPolicy: 'Background' })
    .catch(ignoreNotFound);
  return true;
}

/**
 * A bundle the cache no longer has: if the API server has none of that name either (its
 * finalizer was removed by hand), its build, if any, is deleted. A bundle merely in another
 * shard's cache keeps its build.
 */
export async function releaseOrphanBuild(
  ctx: OperatorContext,
  namespace: string,
  name: string,
): Promise<void> {
  const exists = await ctx.slipway.get('Bundle', namespace, name).then(
    () => true,
    (err: unknown) => {
      if (isNotFound(err)) return false;
      throw err;
    },
  );
  if (!exists && (await deleteBuildJob(ctx, namespace, name, undefined)))
    await deleteBuildSecrets(ctx, namespace, name);
}
