// Servers under test run in their own Node process, so that the load generator does not share
// their event loop and their memory numbers are theirs alone. A tiny request/reply protocol
// over the IPC channel lets the benchmark ask the child for its memory or other facts.
import { stopProcess } from '../../scripts/processes.ts';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type Handler = (arg: unknown) => unknown;
interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

export class ChildServer<Ready = unknown> {
  readonly process: ChildProcess;
  readonly ready: Ready;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(child: ChildProcess, ready: Ready) {
    this.process = child;
    this.ready = ready;
    child.on('message', (m: Reply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new Error(m.error));
      else w.resolve(m.result);
    });
    child.on('exit', () => {
      for (const w of this.waiting.values()) w.reject(new Error('the child process exited'));
      this.waiting.clear();
    });
  }

  /** Forks `script` (a path relative to bench/) and waits for its `ready` message. */
  static async start<R>(script: string, env: Record<string, string> = {}): Promise<ChildServer<R>> {
    const path = fileURLToPath(new URL(`../${script}`, import.meta.url));
    const child = fork(path, [], {
      execArgv: ['--expose-gc', '--disable-warning=ExperimentalWarning'],
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<R>((resolve, reject) => {
      const onMessage = (m: { type?: string; info?: R; error?: string }) => {
        if (m.type === 'ready') resolve(m.info as R);
        else if (m.type === 'failed') reject(new Error(`${script}: ${m.error}`));
        else return;
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    });
    return new ChildServer<R>(child, ready);
  }

  call<T>(command: string, arg?: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.process.send({ id, command, arg });
    });
  }

  async stop(): Promise<void> {
    await stopProcess(this.process);
  }
}

/** In the child: answer the parent's calls, then say ready. */
export function serveParent(handlers: Record<string, Handler>, info: unknown): void {
  process.on('message', (m: { id: number; command: string; arg: unknown }) => {
    const handler = handlers[m.command];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown command ${m.command}`);
        return handler(m.arg);
      })
      .then(
        (result) => process.send!({ id: m.id, result }),
        (error: unknown) => process.send!({ id: m.id, error: String(error) }),
      );
  });
  process.on('SIGTERM', () => process.exit(0));
  process.send!({ type: 'ready', info });
}

export function failToParent(error: unknown): void {
  process.send!({ type: 'failed', error: error instanceof Error ? error.stack : String(error) });
  process.exitCode = 1;
}
