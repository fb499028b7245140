// Times as people read them on the page: UTC ISO for precision, and a relative form beside it.
import { formatTime } from '../../rules/timestamps.ts';

const UNITS: [string, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/** "3 hours ago", "in 2 days", "just now": the largest whole unit, counted down to minutes. */
export function relativeTime(ms: number, nowMs: number): string {
  const delta = ms - nowMs;
  const distance = Math.abs(delta);
  for (const [unit, size] of UNITS) {
    const count = Math.floor(distance / size);
    if (count >= 1) {
      const amount = `${count} ${unit}${count === 1 ? '' : 's'}`;
      return delta < 0 ? `${amount} ago` : `in ${amount}`;
    }
  }
  return 'just now';
}

/** "2026-11-22 07:20 UTC": the ISO instant without seconds, for the eye. */
export function utcText(ms: number): string {
  return `${formatTime(ms).slice(0, 16).replace('T', ' ')} UTC`;
}

/** The exact instant, as the machine-readable datetime of a <time> element. */
export const isoTime = formatTime;
