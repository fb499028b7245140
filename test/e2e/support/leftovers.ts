// Processes the e2e tier starts on this machine (databases, git daemon, operator, gateway) are
// recorded, so that a run killed halfway (a CI time-out) leaves nothing running into the next:
// the next run's global setup stops whatever is still recorded.
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LOG_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '.slipway',
  'e2e-logs',
);
const PIDS = join(LOG_DIR, '..', 'e2e-pids');

/** Records a started process by pid and the program it runs. */
export function track(child: ChildProcess, program: string): ChildProcess {
  mkdirSync(dirname(PIDS), { recursive: true });
  if (child.pid) appendFileSync(PIDS, `${child.pid} ${program}\n`);
  return child;
}

/** Kills every recorded process that still runs the program it was recorded with; forgets them all. */
export function reapLeftovers(): number {
  if (!existsSync(PIDS)) return 0;
  let reaped = 0;
  for (const line of readFileSync(PIDS, 'utf8').split('\n').filter(Boolean)) {
    const [pid, program] = [Number(line.split(' ')[0]), line.slice(line.indexOf(' ') + 1)];
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!cmdline.includes(program)) continue;
      process.kill(pid, 'SIGKILL');
      reaped += 1;
    } catch {
      // gone already
    }
  }
  rmSync(PIDS, { force: true });
  return reaped;
}
