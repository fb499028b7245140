// When a notice happened, in the words of its type — one wording for the pages (times with a
// relative hint) and the feeds (plain UTC times: a feed entry is read long after it was fetched).
import type { Notice, NoticeAtTime } from '../../rules/notice-timeline.ts';
import { html, type Html } from './html.ts';

export function noticeWhen(notice: Notice, at: NoticeAtTime, time: (ms: number) => Html | string): Html {
  const ended = at.endedAt !== null ? html`, ended ${time(at.endedAt)}` : '';
  if (notice.type === 'planned' && notice.beginsAt !== null) {
    const until = notice.endsAt !== null ? html` until ${time(notice.endsAt)}` : '';
    // What really happened, once it did: maintenance runs over, starts late or is cancelled.
    const actual =
      at.beganAt !== null
        ? html` · began ${time(at.beganAt)}${ended}`
        : at.endedAt !== null
          ? html` · ended ${time(at.endedAt)}`
          : '';
    return html`Scheduled for ${time(notice.beginsAt)}${until}${actual}`;
  }
  if (at.beganAt !== null) return html`Began ${time(at.beganAt)}${ended}`;
  return html`Posted ${time(notice.startsAt)}`;
}
