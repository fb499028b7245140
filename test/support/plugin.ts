// Runs `kubectl slipway` (bin/kubectl-slipway) as a user does, against the test cluster.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testState } from './cluster.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface PluginRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runPlugin(namespace: string, ...args: string[]): Promise<PluginRun> {
  return new Promise((resolve) => {
    execFile(
      join(ROOT, 'bin', 'kubectl-slipway'),
      [...args, '--kubeconfig', testState().kubeconfig, '-n', namespace],
      { timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
