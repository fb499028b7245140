// What a bundle deploys when it does not build: the image of the bundle its source.bundleRef
// names (a rollback), and the check every image passes before it goes into a Deployment.
import { findCondition } from '../../lib/conditions.ts';
import { imageRepository } from '../names.ts';
import type { BundleInputs } from './decision.ts';
import type { Chain, Stop } from './chain.ts';
import { wasDeployedTo } from './workload-state.ts';

/**
 * Why `image` is not one this operator deploys: an image of the project's own repository (that
 * of `ownImage`, `<registry>/<namespace>/<project>:<bundle>`), with a tag and a digest.
 */
export function foreignImage(image: string, ownImage: string): string | undefined {
  const repository = imageRepository(ownImage);
  const escaped = repository.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (new RegExp(`^${escaped}:[a-z0-9][a-z0-9.-]*@sha256:[a-f0-9]{64}$`).test(image)) return undefined;
  return `status.image ${image} is not an image of this project's repository ${repository} by digest: not deploying it`;
}

/** A bundle with source.bundleRef builds nothing: it takes the image that bundle built. */
export function reuseStep(input: BundleInputs, chain: Chain, sourceName: string): Stop | undefined {
  const source = input.projectBundles.find((b) => b.metadata.name === sourceName);
  const project = input.bundle.spec.projectRef.name;
  if (!source) {
    const message = `bundle ${sourceName} (source.bundleRef) does not exist in project ${project}`;
    return { how: 'failed', phase: 'Failed', owner: 'Built', reason: 'SourceBundleNotFound', message };
  }
  const image = source.status?.image;
  if (!image || findCondition(source.status?.conditions, 'Built')?.status !== 'True') {
    const message = `bundle ${sourceName} (source.bundleRef) has no built image to reuse`;
    return { how: 'failed', phase: 'Failed', owner: 'Built', reason: 'SourceBundleNotBuilt', message };
  }
  // A rollback puts back what ran on its Environment, nothing else.
  const environment = input.bundle.spec.deploy?.environmentRef.name;
  if (input.bundle.spec.trigger.type === 'Rollback' && environment && !wasDeployedTo(source, environment)) {
    const message = `bundle ${sourceName} (source.bundleRef) was never deployed to environment ${environment}: a rollback puts back only what ran there`;
    return { how: 'failed', phase: 'Failed', owner: 'Built', reason: 'SourceBundleNotDeployed', message };
  }
  chain.status.image = image;
  chain.set('Built', 'True', 'Reused', `reuses image ${image} built by bundle ${sourceName}`);
  return undefined;
}
