// The document every page shares: landmarks, the feeds as <link rel="alternate">, one external
// stylesheet (the Content-Security-Policy allows no inline style or script), and the footer.
import { html, type Html } from './html.ts';
import { utcText } from './time.ts';

export interface LayoutInput {
  /** The StatusPage's name. */
  pageName: string;
  /** Shown in the tab: "<title> – <page name>", or the page name alone. */
  title?: string;
  /** From this document to the page's root ("" at /, "../" under /notices/). */
  root: string;
  /** When the content last changed (the page's updated time). */
  updatedAt: number;
  main: Html;
}

export function document({ pageName, title, root, updatedAt, main }: LayoutInput): string {
  const fullTitle = title ? `${title} – ${pageName}` : pageName;
  // Indentation of the template is dropped: it is bytes on every answer, and no element the page
  // has keeps leading spaces (user text is white-space: pre-line, which collapses them too).
  const markup = html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <title>${fullTitle}</title>
      <link rel="stylesheet" href="${root}assets/status.css" />
      <link
        rel="alternate"
        type="application/atom+xml"
        title="${pageName} – Atom"
        href="${root}history.atom"
      />
      <link rel="alternate" type="application/rss+xml" title="${pageName} – RSS" href="${root}history.rss" />
    </head>
    <body>
      <header class="site"><a class="home" href="${root || './'}">${pageName}</a></header>
      <main>${main}</main>
      <footer class="site">
        <nav aria-label="More">
          <ul>
            <li><a href="${root}history">Past notices</a></li>
            <li><a href="${root}history.atom">Atom feed</a></li>
            <li><a href="${root}history.rss">RSS feed</a></li>
            <li><a href="${root}badge.svg">Status badge</a></li>
            <li><a href="${root}api/v1/status">JSON API</a></li>
          </ul>
        </nav>
        <p>Updated <time datetime="${new Date(updatedAt).toISOString()}">${utcText(updatedAt)}</time></p>
      </footer>
    </body>
  </html>`.markup.replace(/\n[ \t]+/g, '\n');
  return `<!doctype html>\n${markup}\n`;
}
