// What the status kinds' controllers decide, from cached state alone (no I/O, clock injected):
// which StatusPage serves a namespace, whether a component's or notice's references hold, and
// what a notice's status shows at a moment.
import type {
  StatusComponentObject,
  StatusComponentReason,
  StatusNoticeObject,
  StatusNoticeReason,
  StatusPageObject,
  StatusPageReason,
} from '../../crds/index.ts';
import type { ConditionUpdate } from '../../lib/conditions.ts';
import { noticeAt, noticeFromObject } from '../../rules/notice-timeline.ts';
import { oldest } from '../../rules/oldest.ts';
import { earlierHolder, parentProblem } from './ids.ts';

/** The status page's entries: the kinds that get an id and show in the status API. */
export type PageEntryKind = 'StatusComponent' | 'StatusNotice';
export type PageEntryObject = StatusComponentObject | StatusNoticeObject;
type EntryReason = StatusComponentReason | StatusNoticeReason;

/** Re-derive a notice's state at least this often, and whenever a dated update comes due. */
const MAX_NOTICE_RECHECK_MS = 60 * 60_000;

const ready = <R extends string>(status: 'True' | 'False', reason: R, message: string) =>
  ({ type: 'Ready', status, reason, message }) satisfies ConditionUpdate;

/** A StatusPage is Ready when it is the one page of its namespace (the oldest wins). */
export function decidePage(
  page: StatusPageObject,
  pagesOfNamespace: readonly StatusPageObject[],
): ConditionUpdate {
  const first = oldest(pagesOfNamespace);
  if (first && first.metadata.name !== page.metadata.name)
    return ready<StatusPageReason>(
      'False',
      'DuplicateStatusPage',
      `${first.metadata.name} is this namespace's status page; remove this one`,
    );
  return ready<StatusPageReason>('True', 'Published', 'served by the status API');
}

export const NO_STATUS_PAGE = ready<EntryReason>(
  'False',
  'NoStatusPage',
  'waiting for a StatusPage in this namespace to assign an id',
);

/** What an entry's references look like in the cache. */
export interface EntryReferences {
  /** The entries of its namespace with its id (itself included). */
  sameId: readonly PageEntryObject[];
  /** A component's parentRef name; null for a top-level one, undefined for one that does not exist. */
  parentOf: (component: string) => string | null | undefined;
}

/** Ready for a component or notice that has its id. */
export function decideEntry(
  kind: PageEntryKind,
  entry: PageEntryObject,
  refs: EntryReferences,
): ConditionUpdate {
  const holder = earlierHolder(entry, refs.sameId);
  if (holder)
    return ready<EntryReason>(
      'False',
      'DuplicateId',
      `id ${entry.spec.id} already belongs to ${holder.metadata.name}`,
    );
  if (kind === 'StatusComponent') {
    const problem = parentProblem(entry.metadata.name, refs.parentOf);
    if (problem) return ready<EntryReason>('False', problem.reason, problem.message);
  } else {
    const missing = ((entry as StatusNoticeObject).spec.componentRefs ?? [])
      .map((r) => r.name)
      .filter((n) => refs.parentOf(n) === undefined);
    if (missing.length > 0)
      return ready<EntryReason>('False', 'ComponentNotFound', `no such component: ${missing.join(', ')}`);
  }
  return ready<EntryReason>('True', 'Published', `shown in the status API as id ${entry.spec.id}`);
}

/** A notice's status at `now` (what the API shows), and when to look again. */
export function noticeStatus(
  notice: StatusNoticeObject,
  now: Date,
): { status: Record<string, unknown>; requeueAfterMs?: number } {
  const parsed = noticeFromObject(notice);
  if (!parsed) return { status: {} };
  const at = noticeAt(parsed, now);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  // The state moves with the clock when a dated update or the window's edges come due.
  const upcoming = [...parsed.updates.map((u) => u.at), parsed.beginsAt ?? 0, parsed.endsAt ?? 0]
    .filter((t) => t > now.getTime())
    .sort((a, b) => a - b)[0];
  return {
    status: { state: at.state ?? null, beganAt: iso(at.beganAt), endedAt: iso(at.endedAt) },
    requeueAfterMs: Math.min(MAX_NOTICE_RECHECK_MS, (upcoming ?? Infinity) - now.getTime() + 1000),
  };
}
