// Child processes of the developer tools (npm start, the e2e tier): stopping one politely.

import type { ChildProcess } from 'node:child_process';

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
