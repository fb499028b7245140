// The periods a component's check was failing (#59): kept in its status for the last 90 days, so
// the day's uptime counts them as degraded time whether or not an incident was opened. Merged and
// bounded in count: a check that flaps all day cannot grow the component's status.
import { timeMs } from './timestamps.ts';

export interface FailingPeriod {
  /** When the check turned failing (RFC 3339). */
  from: string;
  /** When it passed again; absent while it still fails. */
  to?: string;
}

export const FAILING_PERIOD_DAYS = 90;
/** The most periods kept: past it, the two closest neighbours become one (the gap counts as failing). */
export const MAX_FAILING_PERIODS = 100;
const DAY_MS = 86_400_000;

/** The periods with one more: a failing check opens a period (unless one is open). */
export function periodOpened(periods: readonly FailingPeriod[], at: Date): FailingPeriod[] {
  if (periods.at(-1) && periods.at(-1)!.to === undefined) return [...periods];
  return bounded([...periods, { from: at.toISOString() }], at);
}

/** The periods with the open one closed: the check passes again. */
export function periodClosed(periods: readonly FailingPeriod[], at: Date): FailingPeriod[] {
  const last = periods.at(-1);
  if (!last || last.to !== undefined) return bounded([...periods], at);
  return bounded([...periods.slice(0, -1), { from: last.from, to: at.toISOString() }], at);
}

/** Without periods that ended more than 90 days before `now`, and at most MAX_FAILING_PERIODS. */
function bounded(periods: FailingPeriod[], now: Date): FailingPeriod[] {
  const oldest = now.getTime() - FAILING_PERIOD_DAYS * DAY_MS;
  const kept = periods.filter((p) => p.to === undefined || (timeMs(p.to) ?? 0) >= oldest);
  while (kept.length > MAX_FAILING_PERIODS) {
    let closest = 0;
    let gap = Infinity;
    for (let i = 0; i + 1 < kept.length; i++) {
      const between = (timeMs(kept[i + 1]!.from) ?? 0) - (timeMs(kept[i]!.to) ?? 0);
      if (between < gap) [closest, gap] = [i, between];
    }
    const [a, b] = [kept[closest]!, kept[closest + 1]!];
    kept.splice(closest, 2, { from: a.from, ...(b.to === undefined ? {} : { to: b.to }) });
  }
  return kept;
}
