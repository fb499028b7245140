// What a Preview needs next, from what the caches show: wait (and why), build its head commit,
// serve the built image, or be removed. Pure; controller.ts gathers the facts and acts.
import type { V1Deployment } from '@kubernetes/client-node';
import type {
  BundleObject,
  EnvironmentObject,
  PreviewObject,
  PreviewPhase,
  PreviewReason,
  ProjectObject,
} from '../../crds/index.ts';
import type { ConditionUpdate } from '../../lib/conditions.ts';
import { previewHost } from './copies.ts';

export interface PreviewFacts {
  preview: PreviewObject;
  project: ProjectObject | undefined;
  environment: EnvironmentObject | undefined;
  deployment: V1Deployment | undefined;
  /** The project's newest manual bundle: its build settings are the preview's. */
  manual: BundleObject | undefined;
  /** The bundle of the head commit, once made. */
  bundle: BundleObject | undefined;
  /** The copy of the Deployment that serves the preview, once made. */
  copy: V1Deployment | undefined;
  /** Whether this preview is among the project's first maxPreviews that may build. */
  hasSlot: boolean;
  /** The Previews of any namespace watched whose URL has `host` (INDEX.host), for the host this one would have. */
  holdersOf: (host: string) => ReadonlyArray<PreviewObject>;
  now: Date;
}

export type PreviewStep =
  | { step: 'wait' }
  | { step: 'remove'; why: string }
  | { step: 'build' }
  /** Take down what serves the preview: it may not be served now. */
  | { step: 'withdraw' }
  | { step: 'serve'; host: string; image: string; container: string; bundle: BundleObject }
  | { step: 'watch'; host: string };

export interface PreviewDecision {
  phase: PreviewPhase;
  ready: ConditionUpdate;
  next: PreviewStep;
}

const decision = (
  phase: PreviewPhase,
  status: ConditionUpdate['status'],
  reason: PreviewReason,
  message: string,
  next: PreviewStep = { step: 'wait' },
): PreviewDecision => ({ phase, ready: { type: 'Ready', status, reason, message }, next });

export function decidePreview(facts: PreviewFacts): PreviewDecision {
  const { preview, project, environment, deployment } = facts;
  const { spec } = preview;
  if (!project)
    return decision('Waiting', 'False', 'ProjectNotFound', `Project ${spec.projectRef.name} does not exist`);
  const settings = project.spec.previews;
  if (!settings)
    return decision(
      'Removing',
      'False',
      'PreviewsNotEnabled',
      `Project ${project.metadata.name} has no spec.previews`,
      {
        step: 'remove',
        why: 'its Project no longer has spec.previews',
      },
    );
  const envName = settings.environmentRef.name;
  if (!environment)
    return decision(
      'Waiting',
      'False',
      'EnvironmentNotFound',
      `Environment ${envName} (spec.previews.environmentRef) does not exist`,
    );
  if (!deployment)
    return decision(
      'Waiting',
      'False',
      'DeploymentNotFound',
      `Deployment ${environment.spec.deploymentRef.name} of Environment ${envName} does not exist`,
    );
  const wanted = environment.spec.deploymentRef.container;
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  // The environment's container, as its rollouts pick it: the one named, or the first.
  const container = (wanted ? containers.find((c) => c.name === wanted) : containers[0])?.name;
  if (!container)
    return decision(
      'Waiting',
      'False',
      'ContainerNotFound',
      `Deployment ${deployment.metadata?.name} has no container ${wanted ?? ''}`.trim(),
    );
  const host = previewHost(settings.host, {
    number: spec.number,
    branch: spec.branch,
    project: project.metadata.name,
    namespace: preview.metadata.namespace,
  });
  if ('problem' in host) return decision('Failed', 'False', 'InvalidHost', host.problem);
  if (spec.fork && settings.forks !== 'Approve')
    return decision(
      'Waiting',
      'False',
      'ForkNotAllowed',
      `pull request #${spec.number} comes from a fork, and spec.previews.forks is Deny: code from forks is not built`,
      { step: 'withdraw' },
    );
  if (spec.fork && spec.approvedCommit !== spec.headCommit)
    return decision(
      'Waiting',
      'False',
      'WaitingForApproval',
      `pull request #${spec.number} comes from a fork: it is built once someone approves its head commit ${spec.headCommit.slice(0, 12)} (kubectl slipway preview approve ${project.metadata.name} ${spec.number})`,
    );
  // Two previews at one host ({branch} of two forks, a template without {number}, another
  // namespace's previews with the same template): the older keeps it, whatever its namespace.
  const holder = facts
    .holdersOf(host.host)
    .find(
      (p) => p.metadata.uid !== preview.metadata.uid && !p.metadata.deletionTimestamp && older(p, preview),
    );
  if (holder)
    return decision(
      'Waiting',
      'False',
      'HostTaken',
      holder.metadata.namespace === preview.metadata.namespace
        ? `host ${host.host} is the URL of Preview ${holder.metadata.name} already: make spec.previews.host tell them apart (with {number})`
        : `host ${host.host} is the URL of a preview of another namespace already: make spec.previews.host this namespace's own (with {namespace}, or a domain of yours)`,
      { step: 'withdraw' },
    );
  if (!facts.hasSlot)
    return decision(
      'Waiting',
      'False',
      'MaxPreviewsReached',
      `the project has ${settings.maxPreviews} previews (spec.previews.maxPreviews): this one waits for one of them to close`,
      { step: 'withdraw' },
    );
  if (!facts.manual?.spec.baseSoftware || !facts.manual.spec.directoryMap)
    return decision(
      'Waiting',
      'False',
      'MissingBuildSettings',
      `project ${project.metadata.name} has no manual bundle with baseSoftware and directoryMap: previews copy its build settings, as pushes do`,
    );

  const { bundle } = facts;
  if (!bundle)
    return decision('Building', 'Unknown', 'Building', `building ${spec.headCommit.slice(0, 12)}`, {
      step: 'build',
    });
  const built = bundle.status?.phase;
  if (built === 'Failed') {
    const why = bundle.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? 'the build failed';
    return decision('Failed', 'False', 'BuildFailed', `Bundle ${bundle.metadata.name}: ${why}`);
  }
  if (built !== 'Built' || !bundle.status?.image)
    return decision(
      'Building',
      'Unknown',
      'Building',
      `Bundle ${bundle.metadata.name} is building ${spec.headCommit.slice(0, 12)}`,
    );

  const image = bundle.status.image;
  const { copy } = facts;
  const running = copy?.spec?.template?.spec?.containers?.find((c) => c.name === container)?.image;
  if (running !== image)
    return decision('Building', 'Unknown', 'Progressing', `rolling out ${image}`, {
      step: 'serve',
      host: host.host,
      image,
      container,
      bundle,
    });
  return rolloutState(copy!, host.host);
}

/** Whether `a` was made before `b` (by name when made in the same second). */
function older(a: PreviewObject, b: PreviewObject): boolean {
  const at = (p: PreviewObject) => p.metadata.creationTimestamp ?? '';
  return at(a) < at(b) || (at(a) === at(b) && a.metadata.name < b.metadata.name);
}

function rolloutState(copy: V1Deployment, host: string): PreviewDecision {
  const watch: PreviewStep = { step: 'watch', host };
  const generation = copy.metadata?.generation ?? 0;
  const status = copy.status ?? {};
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded')
    return decision(
      'Failed',
      'False',
      'RolloutFailed',
      `Deployment ${copy.metadata?.name}: ${progressing.message ?? 'progress deadline exceeded'}`,
      watch,
    );
  const done =
    (status.observedGeneration ?? 0) >= generation &&
    (status.updatedReplicas ?? 0) >= 1 &&
    (status.availableReplicas ?? 0) >= 1 &&
    (status.replicas ?? 0) === (status.updatedReplicas ?? 0);
  if (!done)
    return decision(
      'Building',
      'Unknown',
      'Progressing',
      `Deployment ${copy.metadata?.name} is rolling out`,
      watch,
    );
  return decision('Ready', 'True', 'Served', `served at ${host}`, watch);
}
