// A component's last 90 days as bars, Statuspage-like, under its row on the overview: one bar per
// UTC day, coloured by how the day went, its figure in a tooltip. Nothing needs a mouse: the bars
// are a list whose items say their day's figure to screen readers, and a day with notices holds a
// link to each, reachable with Tab, which shows the day's figure and the notice when focused.
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

/** "8 Mar 2026: 75.00% up, 6 h degraded, 2 h maintenance". */
function dayFigure(day: UptimeDay): string {
  const parts = [day.uptime === null ? 'no data' : `${percentText(day.uptime)} up`];
  if (day.degradedSeconds > 0) parts.push(`${durationText(day.degradedSeconds)} degraded`);
  if (day.maintenanceSeconds > 0) parts.push(`${durationText(day.maintenanceSeconds)} maintenance`);
  return `${dayText(day.date)}: ${parts.join(', ')}`;
}

/** Notices linked from one day at most (newest first); the others are counted in its figure. */
const LINKS_PER_DAY = 3;

function dayBar(snapshot: StatusSnapshot, day: UptimeDay, root: string): Html {
  const all = day.noticeIds.flatMap((id) => {
    const notice = snapshot.noticeById.get(id);
    return notice ? [notice] : [];
  });
  const notices = all.slice(0, LINKS_PER_DAY);
  const more = all.length - notices.length;
  const figure = `${dayFigure(day)}${more > 0 ? ` (${all.length} notices, the ${LINKS_PER_DAY} newest linked)` : ''}`;
  const title = notices.length > 0 ? `${figure} — ${notices.map((n) => n.subject).join('; ')}` : figure;
  return html`<li class="day day-${level(day)}" title="${title}">${
    notices.length === 0
      ? html`<span class="visually-hidden">${figure}</span>`
      : notices.map(
          (n) => html`<a href="${root}notices/${n.id}"><span class="tip">${figure} — ${n.subject}</span></a>`,
        )
  }</li>`;
}

export function uptimeBars(snapshot: StatusSnapshot, component: ComponentEntry, now: Date, root = ''): Html {
  const { days, uptime } = componentUptime(snapshot, component, now);
  const total = uptime === null ? 'No uptime figure yet' : `${percentText(uptime)} uptime`;
  return html`<div class="uptime">
    <p class="uptime-total">${total} over the last 90 days</p>
    <ol class="bars" aria-label="${component.name}: uptime per day, the last 90 days, oldest first">
      ${days.map((day) => dayBar(snapshot, day, root))}
    </ol>
  </div>`;
}
