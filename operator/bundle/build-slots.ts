// Whether a bundle whose build could start must wait for a build slot: its project runs at most
// its build concurrency at a time, oldest first, and its namespace (all its projects) at most
// maxNamespaceBuilds, so one namespace cannot take the build namespace.
import type { BundleInputs } from './decision.ts';
import { buildConcurrency, olderBundlesWaitingToBuild } from './siblings.ts';

const builds = (n: number) => `${n} build${n === 1 ? '' : 's'}`;

/**
 * Why the bundle waits for a slot, or undefined when it has one. A stable message: one that
 * counted the queue would change, and be written again, on every queued bundle each time any
 * build starts or ends.
 */
export function buildSlotWait(input: BundleInputs): string | undefined {
  const project = input.project!;
  const limit = buildConcurrency(project, input.defaultBuildConcurrency, input.maxBuildConcurrency);
  if (input.runningBuilds + olderBundlesWaitingToBuild(input).length >= limit)
    return `waiting for a build slot: project ${project.metadata.name} runs at most ${builds(limit)} at a time, oldest first`;
  if (input.namespaceRunningBuilds >= input.maxNamespaceBuilds)
    return `waiting for a build slot: namespace ${input.bundle.metadata.namespace} runs at most ${builds(input.maxNamespaceBuilds)} at a time (all its projects)`;
  return undefined;
}
