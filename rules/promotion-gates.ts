// Whether a promotion's gates hold, and why not (docs/promotion.md). Pure: the operator gives
// the facts (how long the bundle ran where it was tested, the namespace's status notices, the
// approvals) and shows the answer in the Promotion's status.
import type { PromotionGates } from '../crds/promotion.ts';
import { noticeState, noticeTimeBoundaries, timelineState, type Notice } from './notice-timeline.ts';

export type GateName = 'soakMinutes' | 'noOpenIncident' | 'outsideMaintenance' | 'approvals';

export interface GateResult {
  name: GateName;
  met: boolean;
  message: string;
}

/**
 * Gates of a Promotion raised to the minimum its target Environment sets (spec.promoteFrom.gates):
 * the larger numbers, every true, the components of both — or every component when either side
 * watches all of them.
 */
export function effectiveGates(
  own: PromotionGates | undefined,
  minimum: PromotionGates | undefined,
): PromotionGates {
  const a = own ?? {};
  const b = minimum ?? {};
  const max = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.max(x, y);
  // A notice gate without components looks at every notice: neither side may narrow that.
  const watchesAll = [a, b].some((g) => (g.noOpenIncident || g.outsideMaintenance) && !g.components?.length);
  const components = watchesAll ? [] : [...(a.components ?? []), ...(b.components ?? [])].map((c) => c.name);
  const either = (x: boolean | undefined, y: boolean | undefined) => (x || y ? true : undefined);
  const gates: PromotionGates = {
    soakMinutes: max(a.soakMinutes, b.soakMinutes),
    components: components.length > 0 ? [...new Set(components)].sort().map((name) => ({ name })) : undefined,
    noOpenIncident: either(a.noOpenIncident, b.noOpenIncident),
    outsideMaintenance: either(a.outsideMaintenance, b.outsideMaintenance),
    approvals: max(a.approvals, b.approvals),
    separateApprover: either(a.separateApprover, b.separateApprover),
  };
  return Object.fromEntries(Object.entries(gates).filter(([, v]) => v !== undefined)) as PromotionGates;
}

export interface GateFacts {
  gates: PromotionGates;
  /** The environment the bundle was tried on (the Promotion's from). */
  from: string;
  bundle: string;
  /** When the bundle became Ready there, and when another replaced it (ms), if it did. */
  readyAt: number | undefined;
  replacedAt: number | undefined;
  /** The bundle that replaced it. */
  replacedBy: string | undefined;
  notices: readonly Notice[];
  requestedBy: string;
  /** spec.approvals' users, in order. */
  approvers: readonly string[];
  now: Date;
}

export interface GateAnswer {
  gates: GateResult[];
  /** The approvals that count (each user once; not the requester with separateApprover). */
  counted: string[];
  /** When an unmet gate may hold without anything else changing (ms): soak done, a window over. */
  wakeAt: number | undefined;
}

const MINUTE_MS = 60_000;
const minutes = (ms: number) => Math.floor(ms / MINUTE_MS);

export function evaluateGates(facts: GateFacts): GateAnswer {
  const { gates, now } = facts;
  const results: GateResult[] = [];
  const wakes: number[] = [];
  if (gates.soakMinutes !== undefined) {
    const soak = soakGate(facts, gates.soakMinutes);
    results.push(soak.result);
    if (soak.wakeAt !== undefined) wakes.push(soak.wakeAt);
  }
  const watched = gates.components?.map((c) => c.name);
  const on = (notice: Notice) =>
    watched ? notice.componentNames.filter((c) => watched.includes(c)) : [...notice.componentNames];
  const concerns = (notice: Notice) => !watched || on(notice).length > 0;
  const scope = watched
    ? `component${watched.length > 1 ? 's' : ''} ${watched.join(', ')}`
    : 'this namespace';
  const describe = (notice: Notice, what: string) => {
    const parts = on(notice);
    return `StatusNotice ${notice.objectName} (${noticeState(notice, now) ?? notice.type}) is ${what}${
      parts.length > 0 ? ` on component${parts.length > 1 ? 's' : ''} ${parts.join(', ')}` : ''
    }`;
  };
  const present = (type: Notice['type']) =>
    facts.notices
      .filter((n) => n.type === type && concerns(n) && timelineState(n, now) === 'present')
      .sort((a, b) => a.objectName.localeCompare(b.objectName));
  /** A gate that holds while no notice of `type` is present on the components. */
  const noticeGate = (name: GateName, type: Notice['type'], none: string, what: (n: Notice) => string) => {
    const found = present(type);
    results.push({
      name,
      met: found.length === 0,
      message: found.length === 0 ? `${none} on ${scope}` : found.map((n) => describe(n, what(n))).join('; '),
    });
  };
  if (gates.noOpenIncident) noticeGate('noOpenIncident', 'unplanned', 'no incident is open', () => 'open');
  if (gates.outsideMaintenance) {
    noticeGate('outsideMaintenance', 'planned', 'no maintenance is underway', (n) =>
      noticeState(n, now) === 'underway' ? 'underway' : 'in its window',
    );
    // A window that ends, or one that starts, changes the answer without any write.
    for (const n of facts.notices.filter((n) => n.type === 'planned' && concerns(n)))
      wakes.push(...noticeTimeBoundaries(n).filter((t) => t > now.getTime()));
  }
  const counted = [...new Set(facts.approvers)].filter(
    (u) => !(gates.separateApprover && u === facts.requestedBy),
  );
  if (gates.approvals) {
    const needed = gates.approvals;
    const who = counted.length > 0 ? `: ${counted.join(', ')}` : '';
    const own =
      gates.separateApprover && facts.approvers.includes(facts.requestedBy)
        ? ` (${facts.requestedBy}'s own does not count: separateApprover)`
        : '';
    results.push({
      name: 'approvals',
      met: counted.length >= needed,
      message:
        counted.length >= needed
          ? `approved by ${counted.join(', ')}`
          : `${counted.length} of ${needed} approval${needed > 1 ? 's' : ''}${who}${own}: kubectl slipway promotion approve`,
    });
  }
  return { gates: results, counted, wakeAt: wakes.length > 0 ? Math.min(...wakes) : undefined };
}

function soakGate(facts: GateFacts, soakMinutes: number): { result: GateResult; wakeAt?: number } {
  const { from, bundle, readyAt, replacedAt, replacedBy, now } = facts;
  const name = 'soakMinutes';
  if (readyAt === undefined)
    return { result: { name, met: false, message: `bundle ${bundle} has not run on ${from}, Ready` } };
  const until = replacedAt ?? now.getTime();
  const ran = until - readyAt;
  const needed = soakMinutes * MINUTE_MS;
  if (ran >= needed)
    return {
      result: { name, met: true, message: `ran ${minutes(ran)} min on ${from} (soakMinutes ${soakMinutes})` },
    };
  if (replacedAt !== undefined)
    return {
      result: {
        name,
        met: false,
        message: `ran only ${minutes(ran)} min on ${from} before bundle ${replacedBy} replaced it (soakMinutes ${soakMinutes})`,
      },
    };
  return {
    result: {
      name,
      met: false,
      message: `has run ${minutes(ran)} min on ${from}: ${Math.ceil((needed - ran) / MINUTE_MS)} min to go (soakMinutes ${soakMinutes})`,
    },
    wakeAt: readyAt + needed,
  };
}
