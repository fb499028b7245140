// Keeps the local control plane's processes alive under npm start. kwokctl's binary runtime
// starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler (and kwok) as detached
// processes, and nothing starts one again when it dies. Every 2 s each component's pid (kwokctl's
// pids/<component>.pid) is looked up in /proc: one that is gone, or a zombie nobody reaped (where
// PID 1 does not reap, kwokctl would take it for running), has its pid file removed and
// `kwokctl start cluster` starts what is missing, with a log line and a back-off while it fails.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clusterDir, startStoppedComponents } from './control-plane.ts';

export interface ControlPlaneWatch {
  /** How many times a dead component was started again. */
  readonly restarts: number;
  stop(): void;
}

export interface ControlPlaneWatchOptions {
  log: (message: string) => void;
  intervalMs?: number;
  maxDelayMs?: number;
}

/** Whether process `pid` runs (exists and is not a zombie). */
function alive(pid: number): boolean {
  try {
    // "<pid> (<comm>) <state> …": the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The components of `cluster` whose recorded process no longer runs, with their pid files. */
export function deadComponents(cluster: string): { component: string; pidFile: string }[] {
  const dir = join(clusterDir(cluster), 'pids');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.pid'));
  } catch {
    return [];
  }
  return files
    .map((file) => ({ component: file.slice(0, -'.pid'.length), pidFile: join(dir, file) }))
    .filter(({ pidFile }) => {
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      return !(Number.isInteger(pid) && pid > 0 && alive(pid));
    });
}

export function watchControlPlane(cluster: string, options: ControlPlaneWatchOptions): ControlPlaneWatch {
  const intervalMs = options.intervalMs ?? 2_000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  let delayMs = intervalMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const watch = { restarts: 0, stop: () => ((stopped = true), clearTimeout(timer)) };

  const check = async () => {
    const dead = deadComponents(cluster);
    if (dead.length === 0) {
      delayMs = intervalMs;
      return;
    }
    const names = dead.map((d) => d.component).join(', ');
    options.log(`[control-plane] ${names} stopped running; starting it again (kwokctl start cluster)`);
    for (const { pidFile } of dead) rmSync(pidFile, { force: true });
    watch.restarts += 1;
    try {
      await startStoppedComponents(cluster);
      options.log(`[control-plane] ${names} running again`);
      delayMs = intervalMs;
    } catch (error) {
      delayMs = Math.min(delayMs * 2, maxDelayMs);
      options.log(
        `[control-plane] starting ${names} failed (${(error as Error).message.split('\n')[0]}); trying again in ${delayMs / 1000} s`,
      );
    }
  };
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void check().finally(loop);
    }, delayMs);
  };
  loop();
  return watch;
}
