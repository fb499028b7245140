// Keeps one child process of `npm start` running: when it exits (the operator does on purpose
// after losing its Lease, any of them may crash), it is started again after a back-off that
// doubles up to a ceiling and starts over once a run lasted long enough — with a log line each
// time. Only stop() ends it.
import { spawn, type ChildProcess } from 'node:child_process';
import { stopProcess } from './processes.ts';

export interface SupervisorOptions {
  name: string;
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Each child as it starts (to read its output). */
  onStart?: (child: ChildProcess) => void;
  /** One line per exit and restart. */
  log: (message: string) => void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run at least this long resets the delay. */
  resetAfterMs?: number;
}

export class Supervisor {
  readonly #options: Required<Omit<SupervisorOptions, 'onStart'>> & Pick<SupervisorOptions, 'onStart'>;
  #child: ChildProcess | undefined;
  #delayMs: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** How many times the child was started again. */
  restarts = 0;
  readonly name: string;

  constructor(options: SupervisorOptions) {
    this.#options = { initialDelayMs: 1_000, maxDelayMs: 30_000, resetAfterMs: 60_000, ...options };
    this.#delayMs = this.#options.initialDelayMs;
    this.name = options.name;
  }

  start(): void {
    if (this.#stopped) return;
    const { command, args, env, cwd } = this.#options;
    const startedAt = Date.now();
    let child: ChildProcess;
    try {
      child = spawn(command, [...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      this.#scheduleRestart(`could not be started (${(error as Error).message})`, startedAt);
      return;
    }
    this.#child = child;
    // A spawn that fails (EAGAIN, EMFILE, ...) reports 'error', maybe with no 'exit': one restart either way.
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      this.#scheduleRestart(why, startedAt);
    };
    child.once('error', (error) => end(`could not be started (${error.message})`));
    child.once('exit', (code, signal) => end(`exited (${signal ?? code})`));
    this.#options.onStart?.(child);
  }

  #scheduleRestart(why: string, startedAt: number): void {
    if (this.#stopped) return;
    if (Date.now() - startedAt >= this.#options.resetAfterMs) this.#delayMs = this.#options.initialDelayMs;
    const delay = this.#delayMs;
    this.#delayMs = Math.min(this.#delayMs * 2, this.#options.maxDelayMs);
    this.restarts += 1;
    this.#options.log(
      `[${this.#options.name}] ${why}; starting it again in ${delay / 1000} s (restart ${this.restarts})`,
    );
    this.#timer = setTimeout(() => this.start(), delay);
  }

  /** Stops the child for good (SIGTERM, then SIGKILL) and starts no other. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    if (this.#child) await stopProcess(this.#child);
  }
}
