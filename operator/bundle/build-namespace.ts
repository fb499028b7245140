// What a build in the build namespace needs beside its Job (docs/adr/0004): the Bundle's
// finalizer, since an owner reference cannot cross namespaces; the Secrets the build mounts (copies
// of its clone credentials and of the namespace's registry Secrets, since a pod mounts only its
// own namespace's Secrets, or registry credentials minted for it); and the release of all of it
// when the bundle goes.
import type { V1Secret } from '@kubernetes/client-node';
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { FINALIZER_BUILD, LABEL_BUNDLE_NAMESPACE, LABEL_BUNDLE_UID } from '../../crds/labels.ts';
import { ignoreNotFound, isAlreadyExists, isConflict, isNotFound } from '../../lib/kube.ts';
import type { OperatorContext } from '../context.ts';
import { buildJobLabels, buildJobName, buildSecretName, type BuildSecretUse } from '../names.ts';
import {
  mintRegistryCredential,
  registryHost,
  registryPath,
  type RegistryRole,
} from '../../rules/registry-access.ts';

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

/** A build Secret's source: a Secret of the bundle's namespace to copy, or data Slipway wrote. */
type BuildSecretSource = { copyOf: string } | { data: Record<string, string>; type: string };

/** A build credential outlives its build's timeout by this much (a slow pod start). */
const CREDENTIAL_GRACE_SECONDS = 15 * 60;

/**
 * The Secrets a build mounts, by use. The build container, where a fork's code runs beside
 * BuildKit (no process sandbox), gets no registry credential of the namespace: a fork's base and
 * builder images must pull without. Push credentials reach only the push containers, which run
 * after it and run no user code. With SLIPWAY_REGISTRY_AUTH=tokens the registry credentials are
 * minted for this build (docs/adr/0006): push and pull on its own repository, pull on its
 * namespace's, until its timeout has passed; otherwise the namespace's own Secrets are copied.
 */
function buildSecretSources(
  ctx: OperatorContext,
  bundle: BundleObject,
  project: ProjectObject,
): Partial<Record<BuildSecretUse, BuildSecretSource>> {
  const { registryPushSecret, registryPullSecret, registryAuth } = ctx.config;
  const clone = bundle.spec.source.git ? project.spec.repository?.credentialsSecretRef?.name : undefined;
  const fork = bundle.spec.trigger.fork === true;
  const sources: Partial<Record<BuildSecretUse, BuildSecretSource>> = clone ? { git: { copyOf: clone } } : {};
  if (registryAuth === 'tokens') {
    const namespaceRepository = [registryPath(ctx.config.registry), bundle.metadata.namespace]
      .filter(Boolean)
      .join('/');
    const expires =
      Math.floor(ctx.now().getTime() / 1000) + ctx.config.buildTimeoutSeconds + CREDENTIAL_GRACE_SECONDS;
    const minted = (role: RegistryRole, repository: string) =>
      dockerConfig(
        registryHost(ctx.config.registry),
        mintRegistryCredential(ctx.config.archiveUrlKey!, { role, repository, expires }),
      );
    sources.push = minted('push', `${namespaceRepository}/${bundle.spec.projectRef.name}`);
    if (!fork) sources.pull = minted('pull', namespaceRepository);
    return sources;
  }
  if (registryPushSecret) sources.push = { copyOf: registryPushSecret };
  if (registryPullSecret && !fork) sources.pull = { copyOf: registryPullSecret };
  return sources;
}

function dockerConfig(host: string, credential: { username: string; password: string }): BuildSecretSource {
  const auth = Buffer.from(`${credential.username}:${credential.password}`).toString('base64');
  const config = { auths: { [host]: { ...credential, auth } } };
  return {
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

/**
 * Writes the Secrets the build mounts into the build namespace, named after its Job; returns
 * their names by use. A registry Secret the bundle's namespace lacks is skipped (the build
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
  for (const [use, from] of Object.entries(buildSecretSources(ctx, bundle, project)) as [
    BuildSecretUse,
    BuildSecretSource,
  ][]) {
    let content: Pick<V1Secret, 'type' | 'data'>;
    if (!('copyOf' in from)) content = from;
    else {
      try {
        content = await core.readNamespacedSecret({ name: from.copyOf, namespace });
      } catch (err) {
        if (isNotFound(err) && use !== 'git') continue;
        throw err;
      }
    }
    const copy: V1Secret = {
      metadata: {
        name: buildSecretName(job, use),
        namespace: buildNamespace,
        labels: buildJobLabels(bundle),
      },
      type: content.type,
      data: content.data,
    };
    try {
      await core.createNamespacedSecret({ namespace: buildNamespace, body: copy });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      // An earlier attempt (before a restart) made it: a copy from the same Secret stays, a
      // minted credential is minted again (the earlier one may be close to its expiry).
      if (!('copyOf' in from)) {
        await core
          .deleteNamespacedSecret({ name: copy.metadata!.name!, namespace: buildNamespace })
          .catch(ignoreNotFound);
        await core.createNamespacedSecret({ namespace: buildNamespace, body: copy });
      }
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
