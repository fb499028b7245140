// kubectl slipway stats [project] [--since 30d]: the four delivery figures of each environment —
// deployments, lead time for changes, change failure rate, time to restore — from the bundles
// the project keeps (rules/delivery-figures.ts; docs/promotion.md#the-four-figures), read with
// your own rights.
import type { BundleObject, ProjectObject } from '../../crds/index.ts';
import { deliveryFigures, type EnvironmentFigures, type Median } from '../../rules/delivery-figures.ts';
import { UsageError } from '../errors.ts';
import { printObject, table } from '../print.ts';
import { readObject } from '../read.ts';
import { duration, positionals, text, type Command } from './command.ts';

/** 45s, 12m 5s, 3h 0m, 2d 4h: the largest unit that fits and the next. */
export function span(seconds: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [unit, size] of units) {
    // The largest unit that fits, then the next one (1h 0m, 2m 5s).
    if (parts.length > 0 || rest >= size || unit === 's') {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

const medianText = (m: Median | null) => (m ? `${span(m.median)} (${m.count})` : '-');

interface Row extends EnvironmentFigures {
  project: string;
}

export const statsCommand: Command = {
  name: 'stats',
  summary: 'deployment frequency, lead time, change failure rate and time to restore, per environment',
  usage: 'stats [project] [--since 30d] [-o json|yaml]',
  help: `The four delivery figures of each environment of the project (or of every project of the
namespace) over --since (default 30d), from the bundles the project keeps (its
spec.bundleHistoryLimit bounds how far back they go): successful rollouts and their rate per
day; the median lead time from the commit's time (as the provider sent it) to Ready there, with
how many it is the median of; the share of changes whose rollout failed or was rolled back; the
median time from such a failure to the next successful rollout. docs/promotion.md says exactly
how each is counted.

Example: kubectl slipway -n shop stats site --since 7d`,
  options: { since: { type: 'string' } },
  async run(ctx, args, values) {
    const [project] = positionals(args, ['project'], 1);
    if (project) await readObject<ProjectObject>(ctx, 'Project', project);
    const now = Date.now();
    const windowMs = duration(text(values, 'since') ?? '30d', 30 * 86_400_000);
    if (windowMs <= 0) throw new UsageError('--since must be a positive duration, e.g. 30d');
    if (ctx.allNamespaces) throw new UsageError('stats looks at one namespace: leave out -A');
    const since = now - windowMs;
    const bundles = await ctx.slipway.list<BundleObject>('Bundle', ctx.namespace);
    const projects = project ? [project] : [...new Set(bundles.map((b) => b.spec.projectRef.name))].sort();
    const rows: Row[] = projects.flatMap((p) =>
      deliveryFigures(
        bundles.filter((b) => b.spec.projectRef.name === p),
        since,
        now,
      ).map((f) => ({ project: p, ...f })),
    );
    const window = { since: new Date(since).toISOString(), until: new Date(now).toISOString() };
    if (printObject(ctx, { ...window, figures: rows })) return;
    if (rows.length === 0) {
      ctx.err(`No rollouts in namespace ${ctx.namespace}${project ? ` for project ${project}` : ''}.`);
      return;
    }
    ctx.err(`over ${span(windowMs / 1000)}, since ${window.since}, from the bundles each project keeps`);
    ctx.out(
      table(
        rows,
        [
          { header: 'PROJECT', value: (r) => r.project },
          { header: 'ENVIRONMENT', value: (r) => r.environment },
          { header: 'DEPLOYMENTS', value: (r) => String(r.deployments) },
          { header: 'PER DAY', value: (r) => r.perDay.toFixed(2) },
          { header: 'LEAD TIME', value: (r) => medianText(r.leadTime) },
          {
            header: 'CHANGE FAILURE',
            value: (r) =>
              r.changeFailure
                ? `${Math.round(r.changeFailure.rate * 100)}% (${r.changeFailure.failed}/${r.changeFailure.changes})`
                : '-',
          },
          { header: 'TIME TO RESTORE', value: (r) => medianText(r.timeToRestore) },
        ],
        false,
      ),
    );
  },
};
