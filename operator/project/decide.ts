// Pure decisions of the Project controller: who owns a slug, which bundles to prune.
import type { V1Deployment } from '@kubernetes/client-node';
import type { BundleObject, EnvironmentObject, ProjectObject, ProjectReason } from '../../crds/index.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { isNewer } from '../../rules/bundle-order.ts';
import { effectiveSlug } from '../../rules/webhook-url.ts';
import { runningBundle } from '../running-bundle.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { CloneProblem } from '../names.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Why git bundles cannot clone with the credentials Secret the repository names (`secret`
 * undefined: it does not exist), or undefined when they can. An SSH key needs the server's host
 * keys beside it (known_hosts: never trust whoever answers first), and a password or token goes
 * only over https.
 */
export function cloneProblem(
  project: ProjectObject,
  secret: { data?: Record<string, string> } | undefined,
): { reason: CloneProblem; message: string } | undefined {
  const name = project.spec.repository?.credentialsSecretRef?.name;
  if (!name) return undefined;
  if (!secret)
    return {
      reason: 'CredentialsSecretNotFound',
      message: `Secret ${name} (spec.repository.credentialsSecretRef) does not exist: git bundles wait for it before they build`,
    };
  const has = (key: string) => (secret.data?.[key] ?? '') !== '';
  if (has('ssh-privatekey') && !has('known_hosts'))
    return {
      reason: 'KnownHostsMissing',
      message: `Secret ${name} has an ssh-privatekey but no known_hosts: add the git server's host keys (ssh-keyscan <host>) so builds can tell they reach the real server`,
    };
  const url = project.spec.repository?.url ?? '';
  if (!has('ssh-privatekey') && has('password') && !/^https:\/\//i.test(url))
    return {
      reason: 'InsecureRepository',
      message: `spec.repository.url ${url.replace(/\/\/[^/@]*@/, '//')} is not https://: the password in Secret ${name} is sent only over https`,
    };
  return undefined;
}

export const isValidSlug = (slug: string) => slug.length <= 63 && DNS_LABEL.test(slug);

/** Oldest first; namespace and name break ties, so every replica picks the same owner. */
function olderProject(a: ProjectObject, b: ProjectObject): boolean {
  const ta = timeMs(a.metadata.creationTimestamp) ?? 0;
  const tb = timeMs(b.metadata.creationTimestamp) ?? 0;
  if (ta !== tb) return ta < tb;
  return `${a.metadata.namespace}/${a.metadata.name}` < `${b.metadata.namespace}/${b.metadata.name}`;
}

export type SlugClaim =
  { owner: true; slug: string } | { owner: false; reason: ProjectReason; message: string };

/** Whether `project` may use its slug, given every project (any namespace) that claims the same one. */
export function claimSlug(project: ProjectObject, sameSlug: readonly ProjectObject[]): SlugClaim {
  const slug = effectiveSlug(project);
  if (!isValidSlug(slug))
    return {
      owner: false,
      reason: 'InvalidSlug',
      message: `slug ${JSON.stringify(slug)} is not a DNS label (lower-case letters, digits and "-", at most 63); set spec.slug`,
    };
  let owner = project;
  for (const other of sameSlug) {
    if (other.metadata.deletionTimestamp || effectiveSlug(other) !== slug) continue;
    if (olderProject(other, owner)) owner = other;
  }
  if (owner === project || (owner.metadata.uid && owner.metadata.uid === project.metadata.uid))
    return { owner: true, slug };
  return {
    owner: false,
    reason: 'SlugConflict',
    message: `slug ${slug} is already used by project ${owner.metadata.namespace}/${owner.metadata.name}; choose another spec.slug`,
  };
}

/**
 * Bundles an environment runs or is rolling out, and the project's newest manual bundle (webhook
 * and upload bundles copy their build settings from it): never pruned.
 */
export function protectedBundles(
  bundles: readonly BundleObject[],
  environments: readonly EnvironmentObject[],
  deploymentOf: (env: EnvironmentObject) => V1Deployment | undefined,
): Set<string> {
  const names = new Set<string>();
  for (const env of environments) {
    if (env.status?.currentBundle) names.add(env.status.currentBundle);
    if (env.status?.lastDeployment?.bundle) names.add(env.status.lastDeployment.bundle);
    const running = runningBundle(deploymentOf(env));
    if (running) names.add(running);
  }
  const manual = bundles.filter((b) => b.spec.trigger.type === 'Manual');
  if (manual.length > 0) names.add(manual.reduce((a, b) => (isNewer(b, a) ? b : a)).metadata.name);
  // A rollback still on its way needs the bundle whose image it reuses.
  for (const b of bundles)
    if (b.spec.source.bundleRef && !isFinished(b)) names.add(b.spec.source.bundleRef.name);
  return names;
}

/** Finished bundles beyond the newest `limit`, except protected ones. Unfinished ones are never pruned. */
export function bundlesToPrune(
  bundles: readonly BundleObject[],
  limit: number,
  protectedNames: ReadonlySet<string>,
): BundleObject[] {
  const done = bundles
    .filter((b) => !b.metadata.deletionTimestamp && isFinished(b))
    .sort((a, b) => (isNewer(a, b) ? -1 : isNewer(b, a) ? 1 : 0));
  return done.slice(limit).filter((b) => !protectedNames.has(b.metadata.name));
}
