// Keeps the local control plane's processes alive under npm start. kwokctl's binary runtime
// starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler (and kwok) as detached
// processes, and nothing starts one again when it dies (kube-controller-manager and
// kube-scheduler exit on purpose when they cannot renew their leases during an API server
// outage). Every 2 s each component's pid (kwokctl's pids/<component>.pid) is looked up in
// /proc: one that is gone, or a zombie nobody reaped (where PID 1 does not reap, kwokctl would
// take it for running), has its pid file removed and `kwokctl start cluster` starts what is
// missing — retried with a back-off until it runs, with a log line each time.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clusterDir, startStoppedComponents } from './control-plane.ts';

export interface ControlPlaneWatch {
  /** Stops watching; resolves once a restart under way has ended (so a teardown can follow). */
  stop(): Promise<void>;
}

export interface ControlPlaneWatchOptions {
  log: (message: string) => void;
  intervalMs?: number;
  maxDelayMs?: number;
}

/** Whether process `pid` runs (exists and is not a zombie). A stopped process still runs. */
function alive(pid: number): boolean {
  try {
    // "<pid> (<comm>) <state> …": the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const pidFileOf = (cluster: string, component: string) =>
  join(clusterDir(cluster), 'pids', `${component}.pid`);

/** The components of `cluster` whose recorded process no longer runs, with their pid files. */
export function deadComponents(cluster: string): { component: string; pidFile: string }[] {
  const dir = join(clusterDir(cluster), 'pids');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.pid'));
  } catch {
    return [];
  }
  const dead: { component: string; pidFile: string }[] = [];
  for (const file of files) {
    const pidFile = join(dir, file);
    let pid: number;
    try {
      pid = Number(readFileSync(pidFile, 'utf8').trim());
    } catch {
      continue; // removed since the listing (kwokctl stop, or a restart): not ours to judge
    }
    if (!(Number.isInteger(pid) && pid > 0 && alive(pid)))
      dead.push({ component: file.slice(0, -'.pid'.length), pidFile });
  }
  return dead;
}

export function watchControlPlane(cluster: string, options: ControlPlaneWatchOptions): ControlPlaneWatch {
  const intervalMs = options.intervalMs ?? 2_000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  let delayMs = intervalMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  /** Components found dead whose restart has not succeeded yet (their pid files are gone). */
  const pending = new Set<string>();

  const check = async () => {
    for (const { component, pidFile } of deadComponents(cluster)) {
      if (!pending.has(component))
        options.log(
          `[control-plane] ${component} stopped running; starting it again (kwokctl start cluster)`,
        );
      pending.add(component);
      rmSync(pidFile, { force: true });
    }
    if (pending.size === 0 || stopped) {
      delayMs = intervalMs;
      return;
    }
    const names = [...pending].join(', ');
    try {
      await startStoppedComponents(cluster);
      // Started means a live process with a pid file; whether the API answers is for its clients.
      const stillDead = new Set(deadComponents(cluster).map((d) => d.component));
      const missing = [...pending].filter((c) => stillDead.has(c) || !existsSync(pidFileOf(cluster, c)));
      if (missing.length > 0) throw new Error(`${missing.join(', ')} did not start`);
      pending.clear();
      delayMs = intervalMs;
      options.log(`[control-plane] ${names} running again`);
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
      running = check()
        .catch((error: unknown) => options.log(`[control-plane] watch failed: ${String(error)}`))
        .finally(loop);
    }, delayMs);
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
