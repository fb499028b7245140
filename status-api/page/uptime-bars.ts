// A component's last 90 days, Statuspage-like: under its row on the overview, one bar per UTC day,
// coloured by how the day went, its figure in a tooltip; on the component's own page
// (/components/:id) the same days as a table with each day's figure and links to its notices, so
// nothing needs a mouse and the overview stays light.
import type { ComponentEntry, StatusSnapshot } from '../model/snapshot.ts';
import { componentUptime, type UptimeDay } from '../model/uptime.ts';
import { html, type Html } from './html.ts';

/** "99.95%": two decimals, never rounded up to 100 while something was lost. */
export function percentText(fraction: number): string {
  const floored = Math.floor(fraction * 10_000) / 100;
  return `${floored.toFixed(2)}%`;
}

/** "1 h 30 min", "45 min", "20 s". */
function durationText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}` : `${minutes} min`;
}

const dayText = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });

function level(day: UptimeDay): string {
  if (day.uptime === null) return day.maintenanceSeconds > 0 ? 'maint' : 'none';
  if (day.degradedSeconds > 0) return day.uptime < 0.95 ? 'down' : 'partial';
  return day.maintenanceSeconds > 0 ? 'maint' : 'up';
}

/** "8 Mar: 75.00%, 6 h degraded (1 notice)": a bar's tooltip, short (90 of them per component). */
function barTitle(day: UptimeDay): string {
  const parts = [`${day.uptime === null ? 'no data' : percentText(day.uptime)}`];
  if (day.degradedSeconds > 0) parts.push(`${durationText(day.degradedSeconds)} degraded`);
  if (day.maintenanceSeconds > 0) parts.push(`${durationText(day.maintenanceSeconds)} maintenance`);
  const notices = day.noticeIds.length;
  return `${dayText(day.date).replace(/ \d{4}$/, '')}: ${parts.join(', ')}${notices > 0 ? ` (${notices} notice${notices === 1 ? '' : 's'})` : ''}`;
}

/**
 * One day's bar: its colour, and its figure as a tooltip (the day-by-day page has it in a table).
 * A day without data, or wholly up with nothing to tell, says so by its colour alone.
 */
function dayBar(day: UptimeDay): Html {
  const kind = level(day);
  const plain = (kind === 'up' && day.noticeIds.length === 0) || kind === 'none';
  return plain
    ? html`<li class="day day-${kind}"></li>`
    : html`<li class="day day-${kind}" title="${barTitle(day)}"></li>`;
}

/** "99.95% uptime over the last 90 days". */
const totalText = (uptime: number | null) =>
  `${uptime === null ? 'No uptime figure yet' : `${percentText(uptime)} uptime`} over the last 90 days`;

/**
 * The bars under a component on the overview: a picture, hidden from screen readers, beside a
 * link to the component's page, where the same days are a table with their notices.
 */
export function uptimeBars(snapshot: StatusSnapshot, component: ComponentEntry, now: Date, root = ''): Html {
  const { days, uptime } = componentUptime(snapshot, component, now);
  return html`<div class="uptime">
    <p class="uptime-total">${totalText(uptime)} · <a href="${root}components/${component.id}">day by day<span class="visually-hidden"> for ${component.name}</span></a></p>
    <ol class="bars" aria-hidden="true">${days.map(dayBar)}</ol>
  </div>`;
}

/** The component's page: its state, and its last 90 days as bars and as a table, newest first. */
export function uptimeSection(
  snapshot: StatusSnapshot,
  component: ComponentEntry,
  now: Date,
  root = '',
): Html {
  const { days, uptime } = componentUptime(snapshot, component, now);
  const rows = [...days].reverse().map((day) => {
    const notices = day.noticeIds.flatMap((id) => {
      const notice = snapshot.noticeById.get(id);
      return notice ? [notice] : [];
    });
    return html`<tr class="day-row-${level(day)}">
      <th scope="row"><time datetime="${day.date}">${dayText(day.date)}</time></th>
      <td>${day.uptime === null ? 'no data' : percentText(day.uptime)}</td>
      <td>${day.degradedSeconds > 0 ? durationText(day.degradedSeconds) : '—'}</td>
      <td>${day.maintenanceSeconds > 0 ? durationText(day.maintenanceSeconds) : '—'}</td>
      <td>${notices.length === 0 ? '—' : notices.map((n, i) => html`${i > 0 ? ', ' : ''}<a href="${root}notices/${n.id}" dir="auto">${n.subject}</a>`)}</td>
    </tr>`;
  });
  return html`<p class="uptime-total">${totalText(uptime)}</p>
    <ol class="bars" aria-hidden="true">${days.map(dayBar)}</ol>
    <div class="table-scroll" role="region" aria-labelledby="uptime-days" tabindex="0">
      <table class="uptime-days">
        <caption id="uptime-days">Each day (UTC), newest first</caption>
        <thead><tr><th scope="col">Day</th><th scope="col">Uptime</th><th scope="col">Degraded</th><th scope="col">Maintenance</th><th scope="col">Notices</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>
    </div>`;
}
