// Checks of what a build needs from the bundle and its project, before any Job is made.
// The values end up in a Dockerfile and a shell environment, so they are held to a strict shape.
import { isSafeRelativePath } from '../../rules/relative-path.ts';
import type { BundleObject, BundleReason, ProjectObject } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { foreignArchiveProblem } from '../../rules/archive-url.ts';
import { CLONE_PROBLEMS } from '../names.ts';
import { BUILD_STAGE, INSTALL_STAGE, sourcePath } from '../jobs/dockerfile.ts';

export interface SettingsProblem {
  reason: BundleReason;
  message: string;
  /** The bundle spec is immutable: a problem in it can never go away. */
  permanent: boolean;
}

const DIRECTORY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const IMAGE_REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._\-/:@]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Build-args BuildKit gives a meaning to (BUILDKIT_SYNTAX picks the frontend) or the steps use. */
const RESERVED_ENV_PREFIX = /^(SLIPWAY|BUILDKIT)_/i;

/** An image named like a stage of the Dockerfile (dockerfile.ts) would be that stage in FROM. */
const isStageName = (image: string): boolean => [INSTALL_STAGE, BUILD_STAGE].includes(image.toLowerCase());

/**
 * Why an image a build starts from is not for this bundle: under Slipway's registry (the
 * operator's SLIPWAY_REGISTRY, `host[/path]`, where every namespace's bundles are pushed), only
 * the bundle's own namespace's repositories (`<registry>/<namespace>/…`), never another team's.
 */
export function foreignBaseImage(image: string, registry: string, namespace: string): string | undefined {
  const [ours, own] = [`${registry}/`.toLowerCase(), `${registry}/${namespace}/`.toLowerCase()];
  const lower = image.toLowerCase();
  if (!lower.startsWith(ours) || lower.startsWith(own)) return undefined;
  return `${JSON.stringify(image)} is in Slipway's registry but outside this namespace's repositories (${registry}/${namespace}/…)`;
}

export function buildSettingsProblem(
  bundle: BundleObject,
  project: ProjectObject,
  /** Where the gateway serves archives, and Slipway's registry (config). */
  where: { archiveBaseUrl: string; registry: string; registryProblem?: string },
): SettingsProblem | undefined {
  if (where.registryProblem !== undefined)
    return { reason: 'RegistryUnprotected', message: where.registryProblem, permanent: false };
  const { baseSoftware, directoryMap, buildSteps, trigger, source } = bundle.spec;
  if (!baseSoftware || !directoryMap || Object.keys(directoryMap).length === 0) {
    const message =
      trigger.type === 'Manual'
        ? 'a manual bundle needs spec.baseSoftware and a non-empty spec.directoryMap'
        : `a ${trigger.type.toLowerCase()} bundle needs the baseSoftware and directoryMap of the project's latest manual bundle; build a manual bundle of project ${project.metadata.name} first`;
    return { reason: 'MissingBuildSettings', message, permanent: true };
  }
  if (!IMAGE_REFERENCE.test(baseSoftware.image) || isStageName(baseSoftware.image))
    return {
      reason: 'InvalidBaseSoftware',
      message: `spec.baseSoftware.image ${JSON.stringify(baseSoftware.image)} is not an image reference`,
      permanent: true,
    };
  if (buildSteps && (!IMAGE_REFERENCE.test(buildSteps.image) || isStageName(buildSteps.image)))
    return {
      reason: 'InvalidBuildSteps',
      message: `spec.buildSteps.image ${JSON.stringify(buildSteps.image)} is not an image reference`,
      permanent: true,
    };
  for (const [field, image] of [
    ['baseSoftware.image', baseSoftware.image],
    ['buildSteps.image', buildSteps?.image],
  ] as const) {
    const foreign = image && foreignBaseImage(image, where.registry, bundle.metadata.namespace);
    if (foreign) return { reason: 'ForeignBaseImage', message: `spec.${field} ${foreign}`, permanent: true };
  }
  const badVariable = Object.keys(buildSteps?.env ?? {}).find(
    (name) => !ENV_NAME.test(name) || RESERVED_ENV_PREFIX.test(name),
  );
  if (badVariable !== undefined)
    return {
      reason: 'InvalidBuildSteps',
      message: `spec.buildSteps.env name ${JSON.stringify(badVariable)} must be made of letters, digits and _, and not start with SLIPWAY_ or BUILDKIT_ (reserved for the build)`,
      permanent: true,
    };
  const installFile = buildSteps?.install?.files.find(
    (file) => !isSafeRelativePath(file) || sourcePath(file) === '.',
  );
  if (installFile !== undefined)
    return {
      reason: 'InvalidBuildSteps',
      message: `spec.buildSteps.install.files must name files or directories inside the source (relative, without "..", not the whole tree), got ${JSON.stringify(installFile)}`,
      permanent: true,
    };
  for (const [name, path] of Object.entries(directoryMap)) {
    if (!DIRECTORY_NAME.test(name) || name === '.' || name === '..')
      return {
        reason: 'InvalidDirectoryMap',
        message: `spec.directoryMap key ${JSON.stringify(name)} is not a plain directory name`,
        permanent: true,
      };
    if (!isSafeRelativePath(path))
      return {
        reason: 'InvalidDirectoryMap',
        message: `spec.directoryMap.${name} must be a relative path inside the source without "..", got ${JSON.stringify(path)}`,
        permanent: true,
      };
  }
  if (!source.git && !source.archive)
    return { reason: 'InvalidSource', message: 'spec.source needs git or archive', permanent: true };
  if (source.archive) {
    const { namespace } = bundle.metadata;
    const foreign = foreignArchiveProblem(
      source.archive.url,
      where.archiveBaseUrl,
      namespace,
      bundle.spec.projectRef.name,
    );
    if (foreign) return { reason: 'ForeignArchive', message: foreign, permanent: true };
  }
  if (source.git && !project.spec.repository)
    return {
      reason: 'RepositoryNotConfigured',
      message: `bundle builds commit ${source.git.commit}, but project ${project.metadata.name} has no spec.repository to clone`,
      permanent: false,
    };
  // The Project controller found the clone credentials unusable (it reads the Secret; bundles do not).
  const projectReady = findCondition(project.status?.conditions, 'Ready');
  const cloneProblem = CLONE_PROBLEMS.find((p) => p === projectReady?.reason);
  if (source.git && cloneProblem)
    return { reason: cloneProblem, message: projectReady!.message, permanent: false };
  return undefined;
}
