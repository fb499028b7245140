// What subscriber webhooks are told, decided from cached state alone (no I/O, clock injected).
// Each component and notice records in its status the latest change subscribers are told of
// (`status.announced`): the status controllers write it (a durable record of the change, so
// nothing is lost when the operator restarts before sending), the subscriber sink (subscribers/subscriber-sink.ts) adds the
// webhooks that took it. A change made while a receiver could not take it is replaced by the
// next one: receivers learn the latest state of each component and incident, as a level.
import { createHash } from 'node:crypto';
import type { ComponentState, StatusComponentObject, StatusNoticeObject } from '../crds/index.ts';
import { noticeAt, noticeFromObject } from './notice-timeline.ts';
import { STATUSPAGE_WORDS, incidentStatus, shownAsIncident } from './statuspage.ts';

export type Announced = NonNullable<NonNullable<StatusComponentObject['status']>['announced']>;

/** A notice's version while Statuspage does not show it (a general one, an incident not begun). */
export const NOT_SHOWN = '';

/** A component's version: the Statuspage status it shows (a group: the worst of its parts). */
export function componentVersion(shown: ComponentState): string {
  return STATUSPAGE_WORDS.componentStatus[shown];
}

/** Marks how a notice's version is computed: a record made another way is not news. */
const NOTICE_VERSION_TAG = 'n1';

/**
 * A notice's version at `now`: a digest of what subscribers are shown of it — its type,
 * subject, Statuspage status, the updates in effect, its window and the components it affects —
 * from the notice's own fields, not from the payload's shape (a new operator that sends more
 * fields does not make every notice news).
 */
export function noticeVersion(object: StatusNoticeObject, now: Date): string {
  const notice = noticeFromObject(object);
  if (!notice) return NOT_SHOWN;
  const at = noticeAt(notice, now);
  if (!shownAsIncident(notice, at)) return NOT_SHOWN;
  const shown = [
    notice.type,
    notice.subject,
    incidentStatus(notice, at),
    notice.updates.slice(0, at.updateCount).map((u) => [u.at, u.state ?? '', u.content]),
    notice.beginsAt,
    notice.endsAt,
    (object.spec.componentRefs ?? []).map((r) => r.name).sort(),
  ];
  const digest = createHash('sha256').update(JSON.stringify(shown)).digest('hex').slice(0, 16);
  return `${NOTICE_VERSION_TAG}:${digest}`;
}

const tagOf = (version: string) => (version.includes(':') ? version.slice(0, version.indexOf(':')) : '');

/**
 * The record after this look: the first one is dated at the object's creation (a notice
 * created before a webhook was added is not news to it; a component's first state is no
 * change), a new version at `now` with the one before it.
 */
export function nextAnnounced(
  current: Announced | undefined,
  version: string,
  createdAt: string,
  now: Date,
): Announced {
  if (!current) return { version, at: createdAt, deliveredTo: [] };
  if (current.version === version) return current;
  // A notice version computed another way (an older operator): the same change, not news.
  if (current.version !== NOT_SHOWN && version !== NOT_SHOWN && tagOf(current.version) !== tagOf(version))
    return { ...current, version };
  return { version, previous: current.version, at: now.toISOString(), deliveredTo: [] };
}

/** Whether the record is a change subscribers are told of (who exactly: subscribers/subscriber-sink.ts). */
export function isNews(kind: 'StatusComponent' | 'StatusNotice', announced: Announced): boolean {
  return kind === 'StatusComponent'
    ? announced.previous !== undefined && announced.previous !== announced.version
    : announced.version !== NOT_SHOWN;
}
