// Status badges in the shields.io "flat" style people embed in READMEs: a grey label and the
// state on its colour, white 11 px Verdana-like text. /badge.svg shows the page's state,
// /components/:id/badge.svg one component's. The text is in the SVG's <title> and aria-label too.
import type { ComponentState } from '../../crds/index.ts';
import { escapeHtml as x } from './html.ts';

const COLOURS: Record<ComponentState, string> = {
  operational: '#2e7d32',
  degraded: '#c62828',
  'under-maintenance': '#1565c0',
};

const MESSAGES: Record<ComponentState, string> = {
  operational: 'operational',
  degraded: 'degraded',
  'under-maintenance': 'maintenance',
};

/** Approximate advance widths of Verdana at 11 px (what shields measures with), in px. */
function textWidth(text: string): number {
  let width = 0;
  for (const c of text) {
    if ("il.,:;!|'`".includes(c)) width += 3.5;
    else if ('fjrt()[]{} -'.includes(c)) width += 4.5;
    else if ('mwMW@%'.includes(c)) width += 10.5;
    else if (/[A-Z0-9]/.test(c)) width += 7.5;
    else width += 6.5;
  }
  return Math.ceil(width);
}

export function badge(label: string, state: ComponentState): string {
  const message = MESSAGES[state];
  const shownLabel = [...label].length > 40 ? `${[...label].slice(0, 39).join('')}…` : label;
  const left = textWidth(shownLabel) + 12;
  const right = textWidth(message) + 12;
  const width = left + right;
  const title = `${shownLabel}: ${message}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${x(title)}">
<title>${x(title)}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/><rect x="${left}" width="${right}" height="20" fill="${COLOURS[state]}"/><rect width="${width}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="${left / 2}" y="15" fill="#010101" fill-opacity=".3">${x(shownLabel)}</text><text x="${left / 2}" y="14">${x(shownLabel)}</text>
<text x="${left + right / 2}" y="15" fill="#010101" fill-opacity=".3">${message}</text><text x="${left + right / 2}" y="14">${message}</text>
</g>
</svg>
`;
}
