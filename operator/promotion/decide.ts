// What a Promotion does next, from what the operator's caches show (pure; controller.ts gathers
// the facts and acts): wait on a gate or a missing object, fail on one that cannot be promoted,
// create the bundle that rolls the image out, or follow that bundle to its end.
import type {
  BundleObject,
  EnvironmentObject,
  ProjectObject,
  PromotionObject,
  PromotionPhase,
  PromotionReason,
} from '../../crds/index.ts';
import { findCondition, type ConditionUpdate } from '../../lib/conditions.ts';
import { isFinished } from '../../rules/bundle-outcome.ts';
import { isNewer } from '../../rules/bundle-order.ts';
import { deployedAt } from '../../rules/delivery-figures.ts';
import type { Notice } from '../../rules/notice-timeline.ts';
import {
  effectiveGates,
  evaluateGates,
  type GateName,
  type GateResult,
} from '../../rules/promotion-gates.ts';
import { foreignImage } from '../bundle/reuse.ts';
import { wasDeployedTo } from '../bundle/workload-state.ts';

export interface PromotionFacts {
  promotion: PromotionObject;
  project: ProjectObject | undefined;
  from: EnvironmentObject | undefined;
  to: EnvironmentObject | undefined;
  /** The bundle promoted: status.bundle once chosen, else spec.bundleRef, else what from runs now. */
  sourceName: string | undefined;
  source: BundleObject | undefined;
  /** The project's bundles, for when another replaced the source on from. */
  projectBundles: readonly BundleObject[];
  /** The bundle (trigger Promotion) that rolls it out, once made. */
  rollout: BundleObject | undefined;
  /** status.rolloutBundle names one that no longer exists. */
  rolloutGone: boolean;
  /** The bundle that built the image of a bundle (through rollbacks and promotions). */
  origin: (bundle: BundleObject) => BundleObject | undefined;
  /** The origin of what the target Environment runs now. */
  runningOrigin: BundleObject | undefined;
  /** The names of the namespace's StatusComponents. */
  components: ReadonlySet<string>;
  notices: readonly Notice[];
  /** What an image built by Slipway for the source bundle looks like (operator/names.ts bundleImage). */
  ownImage: string | undefined;
  now: Date;
}

export interface PromotionDecision {
  phase: PromotionPhase;
  ready: ConditionUpdate;
  gates?: GateResult[];
  /** Approvals that count. */
  counted?: string[];
  /** Look again then (ms) even if nothing changes. */
  wakeAt?: number;
  /** All gates hold: make the rollout bundle. */
  promote?: boolean;
}

const ready = (
  status: ConditionUpdate['status'],
  reason: PromotionReason,
  message: string,
): ConditionUpdate => ({
  type: 'Ready',
  status,
  reason,
  message,
});

const waiting = (reason: PromotionReason, message: string): PromotionDecision => ({
  phase: 'Waiting',
  ready: ready('False', reason, message),
});
const failed = (reason: PromotionReason, message: string): PromotionDecision => ({
  phase: 'Failed',
  ready: ready('False', reason, message),
});

const GATE_REASONS: Record<GateName, PromotionReason> = {
  soakMinutes: 'WaitingForSoak',
  noOpenIncident: 'IncidentOpen',
  outsideMaintenance: 'MaintenanceUnderway',
  approvals: 'WaitingForApproval',
};

export function decidePromotion(facts: PromotionFacts): PromotionDecision {
  const { promotion, project, from, to, source, sourceName } = facts;
  const { spec } = promotion;
  if (facts.rollout) return followRollout(facts, facts.rollout);
  if (facts.rolloutGone)
    return failed(
      'RolloutFailed',
      `bundle ${promotion.status?.rolloutBundle} was deleted before it finished`,
    );
  if (!project) return waiting('ProjectNotFound', `Project ${spec.projectRef.name} does not exist`);
  for (const [side, env, name] of [
    ['from', from, spec.from.environmentRef.name],
    ['to', to, spec.to.environmentRef.name],
  ] as const) {
    if (!env) return waiting('EnvironmentNotFound', `Environment ${name} (${side}) does not exist`);
    if (env.spec.projectRef.name !== project.metadata.name)
      return failed(
        'EnvironmentProjectMismatch',
        `Environment ${name} (${side}) belongs to project ${env.spec.projectRef.name}, not ${project.metadata.name}`,
      );
  }
  const fromName = spec.from.environmentRef.name;
  const toName = spec.to.environmentRef.name;
  const path = to!.spec.promoteFrom?.environmentRef.name;
  if (path && path !== fromName)
    return failed(
      'SourceNotAllowed',
      `Environment ${toName} takes promotions from ${path} only (its spec.promoteFrom), not from ${fromName}`,
    );
  if (!sourceName) return waiting('NothingDeployed', `Environment ${fromName} has run no bundle yet`);
  if (!source) return failed('BundleNotFound', `bundle ${sourceName} does not exist`);
  if (source.spec.projectRef.name !== project.metadata.name)
    return failed('BundleNotFound', `bundle ${sourceName} belongs to project ${source.spec.projectRef.name}`);
  if (!wasDeployedTo(source, fromName)) {
    if (source.spec.deploy?.environmentRef.name === fromName && !isFinished(source))
      return waiting('BundleNotDeployed', `bundle ${sourceName} is still on its way to ${fromName}`);
    return failed(
      'BundleNotDeployed',
      `bundle ${sourceName} was never deployed to ${fromName}: a promotion moves only what ran there`,
    );
  }
  const image = source.status?.image;
  if (!image || findCondition(source.status?.conditions, 'Built')?.status !== 'True')
    return failed('BundleNotBuilt', `bundle ${sourceName} has no built image`);
  const foreign = facts.ownImage ? foreignImage(image, facts.ownImage) : undefined;
  if (foreign) return failed('ForeignImage', `bundle ${sourceName}: ${foreign}`);
  // What the target runs came from a newer build: rolling this one out would undo it.
  const origin = facts.origin(source);
  const runs = facts.runningOrigin;
  if (origin && runs && runs.metadata.name !== origin.metadata.name && isNewer(runs, origin))
    return failed(
      'Superseded',
      `${toName} already runs an image built by bundle ${runs.metadata.name}, newer than ${origin.metadata.name}'s`,
    );

  const readyAt = deployedAt(source);
  const replacement =
    readyAt === undefined ? undefined : replacedOn(facts.projectBundles, fromName, source, readyAt);
  if (replacement?.rollback)
    return failed(
      'ReplacedOnSource',
      `${fromName} was rolled back from bundle ${sourceName} (bundle ${replacement.bundle}): it is not promoted`,
    );
  const gates = effectiveGates(spec.gates, to!.spec.promoteFrom?.gates);
  const unknown = (gates.components ?? []).map((c) => c.name).filter((c) => !facts.components.has(c));
  if (unknown.length > 0)
    return waiting(
      'ComponentNotFound',
      `StatusComponent ${unknown.join(', ')} (gates.components) does not exist in this namespace`,
    );
  const answer = evaluateGates({
    gates,
    from: fromName,
    bundle: sourceName,
    readyAt,
    replacedAt: replacement?.at,
    replacedBy: replacement?.bundle,
    notices: facts.notices,
    requestedBy: spec.requestedBy,
    approvers: (spec.approvals ?? []).map((a) => a.user),
    now: facts.now,
  });
  const unmet = answer.gates.filter((g) => !g.met);
  const common = { gates: answer.gates, counted: answer.counted };
  // Replaced on the source before it soaked: it never will.
  const soak = unmet.find((g) => g.name === 'soakMinutes');
  if (soak && replacement) return { ...failed('ReplacedOnSource', soak.message), ...common };
  if (unmet.length > 0)
    return {
      ...waiting(GATE_REASONS[unmet[0]!.name], unmet.map((g) => g.message).join('; ')),
      ...common,
      ...(answer.wakeAt === undefined ? {} : { wakeAt: answer.wakeAt }),
    };
  return {
    phase: 'Promoting',
    ready: ready('Unknown', 'Promoting', `the gates hold: rolling out image ${image} to ${toName}`),
    ...common,
    promote: true,
  };
}

function followRollout(facts: PromotionFacts, rollout: BundleObject): PromotionDecision {
  const to = facts.promotion.spec.to.environmentRef.name;
  const name = rollout.metadata.name;
  const phase = rollout.status?.phase;
  if (phase === 'Ready')
    return {
      phase: 'Succeeded',
      ready: ready('True', 'Promoted', `${to} runs image ${rollout.status?.image} (bundle ${name})`),
    };
  if (phase === 'Failed' || phase === 'Superseded') {
    const why = findCondition(rollout.status?.conditions, 'Ready')?.message ?? phase;
    return failed(
      'RolloutFailed',
      `bundle ${name} ${phase === 'Failed' ? 'failed' : 'was superseded'}: ${why}`,
    );
  }
  return {
    phase: 'Promoting',
    ready: ready(
      'Unknown',
      'Promoting',
      `bundle ${name} rolls the image out to ${to}: ${phase ?? 'Pending'}`,
    ),
  };
}

/** The first bundle deployed to `environment` after `source` was (ms, and its name). */
function replacedOn(
  bundles: readonly BundleObject[],
  environment: string,
  source: BundleObject,
  since: number,
): { at: number; bundle: string; rollback: boolean } | undefined {
  let first: { at: number; bundle: string; rollback: boolean } | undefined;
  for (const b of bundles) {
    if (b.metadata.name === source.metadata.name || !wasDeployedTo(b, environment)) continue;
    const at = deployedAt(b);
    if (at !== undefined && at > since && (!first || at < first.at))
      first = { at, bundle: b.metadata.name, rollback: b.spec.trigger.type === 'Rollback' };
  }
  return first;
}
