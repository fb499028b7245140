// The operator as its own process (operator/main.ts, as it runs in the cluster), so its RSS is
// the operator's alone. Logs go to a file under bench/results/ (git-ignored).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, stopProcess } from '../../scripts/processes.ts';
import { until } from './cluster.ts';
import { rssOfPid } from './memory.ts';
import { mib } from './stats.ts';

const MAIN = fileURLToPath(new URL('../../operator/main.ts', import.meta.url));
const LOG_DIR = fileURLToPath(new URL('../results/logs/', import.meta.url));

export class OperatorProcess {
  readonly child: ChildProcess;
  readonly logFile: string;
  readonly adminPort: number;
  private timer: NodeJS.Timeout | undefined;
  private peak = 0;

  private constructor(child: ChildProcess, logFile: string, adminPort: number) {
    this.child = child;
    this.logFile = logFile;
    this.adminPort = adminPort;
  }

  static async start(options: {
    kubeconfig: string;
    namespace: string;
    name: string;
    env?: Record<string, string>;
  }): Promise<OperatorProcess> {
    mkdirSync(LOG_DIR, { recursive: true });
    const logFile = `${LOG_DIR}${options.name}.log`;
    const fd = openSync(logFile, 'w');
    const adminPort = await freePort();
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', MAIN], {
      env: {
        ...process.env,
        KUBECONFIG: options.kubeconfig,
        SLIPWAY_WATCH_NAMESPACE: options.namespace,
        SLIPWAY_LEADER_ELECTION: 'false',
        SLIPWAY_ADMIN_PORT: String(adminPort),
        SLIPWAY_GATEWAY_BASE_URL: 'https://hooks.bench.test',
        SLIPWAY_REGISTRY: 'registry.bench.test:5000',
        SLIPWAY_LOG_LEVEL: process.env.BENCH_OPERATOR_LOG_LEVEL ?? 'warn',
        SLIPWAY_PROCESS: 'operator',
        POD_NAMESPACE: options.namespace,
        POD_NAME: options.name,
        ...options.env,
      },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const operator = new OperatorProcess(child, logFile, adminPort);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) =>
        reject(new Error(`the operator exited with ${code}: ${operator.logTail()}`)),
      ),
    );
    await Promise.race([
      exited,
      until(
        'the operator to be ready',
        async () => (await fetch(`http://127.0.0.1:${adminPort}/readyz`)).status === 200,
        120_000,
        // Polled often: the start is measured in tenths of a second.
        20,
      ),
    ]);
    exited.catch(() => undefined);
    return operator;
  }

  /** Current RSS in MiB. */
  rss(): number {
    return rssOfPid(this.child.pid!) ?? NaN;
  }

  /** Samples RSS every `ms` and keeps the peak. */
  sample(ms: number): void {
    this.timer = setInterval(() => (this.peak = Math.max(this.peak, this.rss() || 0)), ms);
    this.timer.unref();
  }

  peakRss(): number {
    return Math.max(this.peak, this.rss() || 0);
  }

  /** The process's own view of its memory, from the default metrics on its admin port (MiB). */
  async memoryMetrics(): Promise<{ heapUsedMiB: number; heapTotalMiB: number; externalMiB: number }> {
    const text = await (await fetch(`http://127.0.0.1:${this.adminPort}/metrics`)).text();
    const value = (name: string) => {
      const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text);
      return match ? mib(Number(match[1])) : NaN;
    };
    return {
      heapUsedMiB: value('nodejs_heap_size_used_bytes'),
      heapTotalMiB: value('nodejs_heap_size_total_bytes'),
      externalMiB: value('nodejs_external_memory_bytes'),
    };
  }

  logTail(): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-10).join('\n');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await stopProcess(this.child);
  }
}
