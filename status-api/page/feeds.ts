// The notices as feeds: Atom 1.0 (RFC 4287) at /history.atom and RSS 2.0 at /history.rss. One
// entry per notice (newest first), its updates in the entry's content; the notice's page URL is
// its link and its stable id, its latest change its updated time.
import { noticeAt, type Notice, type NoticeAtTime } from '../../rules/notice-timeline.ts';
import { noticeUrl } from '../../rules/notice-timeline.ts';
import { serializePage } from '../model/serialize.ts';
import type { StatusSnapshot } from '../model/snapshot.ts';
import { escapeHtml as x, html, type Html } from './html.ts';
import { isoTime, utcText } from './time.ts';
import { noticeWhen } from './when.ts';
import { noticeStateText, noticeTypeText } from './words.ts';

/** Text with its line breaks kept: feed readers do not get the page's `white-space: pre-line`. */
const withLineBreaks = (text: string): Html[] =>
  text.split('\n').map((line, i) => (i === 0 ? html`${line}` : html`<br />${line}`));

export const FEED_ENTRIES = 50;

interface FeedEntry {
  notice: Notice;
  at: NoticeAtTime;
  url: string;
  /** What and when, the affected components and the updates (newest first), as HTML (escaped once more when put into the XML). */
  content: string;
}

interface Feed {
  title: string;
  pageUrl: string;
  updatedAt: number;
  entries: FeedEntry[];
}

function feedOf(snapshot: StatusSnapshot, now: Date): Feed | null {
  const page = serializePage(snapshot, now);
  if (page === null) return null;
  const pageUrl = page.url.replace(/\/+$/, '');
  const entries = snapshot.notices.slice(0, FEED_ENTRIES).map((notice) => {
    const at = noticeAt(notice, now);
    const updates = notice.updates.slice(0, at.updateCount).reverse();
    const components = snapshot.impactedComponents.get(notice.id) ?? [];
    const content = html`<p>
        ${noticeTypeText[notice.type]}${at.state ? ` – ${noticeStateText[at.state]}` : ''}.
        ${noticeWhen(notice, at, utcText)}.
      </p>
      ${components.length > 0 ? html`<p>Affected: ${components.map((c, i) => `${i > 0 ? ', ' : ''}${c.name}`)}</p>` : ''}
      ${
        updates.length > 0
          ? html`<ul>
            ${updates.map(
              (u) =>
                html`<li>
                  <strong>${u.state ? `${noticeStateText[u.state]}, ` : ''}${utcText(u.at)}</strong>: ${withLineBreaks(u.content)}
                </li>`,
            )}
          </ul>`
          : ''
      }`.markup;
    return { notice, at, url: noticeUrl(pageUrl, notice.id), content };
  });
  const updatedAt = Math.max(Date.parse(page.updated_at), ...entries.map((e) => e.at.updatedAt));
  return { title: page.name, pageUrl, updatedAt, entries };
}

export function atomFeed(snapshot: StatusSnapshot, now: Date): string | null {
  const feed = feedOf(snapshot, now);
  if (feed === null) return null;
  const entries = feed.entries.map(
    (e) => `<entry>
<id>${x(e.url)}</id>
<title type="text">${x(e.notice.subject)}</title>
<link rel="alternate" type="text/html" href="${x(e.url)}"/>
<published>${isoTime(e.notice.createdAt)}</published>
<updated>${isoTime(e.at.updatedAt)}</updated>
<category term="${e.notice.type}" label="${x(noticeTypeText[e.notice.type])}"/>
<content type="html">${x(e.content)}</content>
</entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${x(feed.pageUrl)}/history.atom</id>
<title type="text">${x(feed.title)}</title>
<subtitle type="text">Incidents, maintenance and announcements</subtitle>
<link rel="self" type="application/atom+xml" href="${x(feed.pageUrl)}/history.atom"/>
<link rel="alternate" type="text/html" href="${x(feed.pageUrl)}/"/>
<updated>${isoTime(feed.updatedAt)}</updated>
<author><name>${x(feed.title)}</name><uri>${x(feed.pageUrl)}/</uri></author>
<generator>Slipway</generator>
${entries.join('\n')}
</feed>
`;
}

export function rssFeed(snapshot: StatusSnapshot, now: Date): string | null {
  const feed = feedOf(snapshot, now);
  if (feed === null) return null;
  const date = (ms: number) => new Date(ms).toUTCString().replace('GMT', '+0000');
  const items = feed.entries.map(
    (e) => `<item>
<title>${x(e.notice.subject)}</title>
<link>${x(e.url)}</link>
<guid isPermaLink="true">${x(e.url)}</guid>
<pubDate>${date(e.notice.createdAt)}</pubDate>
<category>${x(noticeTypeText[e.notice.type])}</category>
<description>${x(e.content)}</description>
</item>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${x(feed.title)}</title>
<link>${x(feed.pageUrl)}/</link>
<description>${x(`Incidents, maintenance and announcements of ${feed.title}`)}</description>
<language>en</language>
<lastBuildDate>${date(feed.updatedAt)}</lastBuildDate>
<atom:link href="${x(feed.pageUrl)}/history.rss" rel="self" type="application/rss+xml"/>
<generator>Slipway</generator>
${items.join('\n')}
</channel>
</rss>
`;
}
