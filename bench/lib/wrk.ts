// The bench's second load generator: Debian's wrk (scripts/bench/wrk.sh installs it), one
// thread, a fixed number of connections, for a fixed time, with its latency percentiles. Its
// figures are read as a LoadResult, so they sit beside the Node client's in the same tables, and
// a ratio measured with both does not depend on one client.
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadResult } from './load.ts';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/bench/wrk.sh', import.meta.url));

/** wrk's path, installed when missing (root); undefined, with the reason printed, when it cannot be. */
export function findWrk(log: (line: string) => void): string | undefined {
  try {
    return execFileSync('sh', [SCRIPT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  } catch {
    log('wrk is not available: the second load generator is left out of this run');
    return undefined;
  }
}

/** "1.23ms", "850.00us", "2.01s" → milliseconds. */
function ms(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!match) return NaN;
  const value = Number(match[1]);
  return { us: value / 1000, ms: value, s: value * 1000, m: value * 60_000 }[
    match[2] as 'us' | 'ms' | 's' | 'm'
  ];
}

/** One wrk run against `origin + path`; headers as wrk's -H. */
export async function wrkLoad(
  wrk: string,
  origin: string,
  path: string,
  concurrency: number,
  durationMs: number,
  headers: Record<string, string> = {},
): Promise<LoadResult> {
  const seconds = Math.max(1, Math.round(durationMs / 1000));
  const { stdout } = await run(wrk, [
    '-t1',
    `-c${concurrency}`,
    `-d${seconds}s`,
    '--latency',
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    `${origin}${path}`,
  ]);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? NaN);
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  const percentile = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, 'm').exec(stdout)?.[1] ?? '');
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  const socketErrors = /Socket errors:.*/.exec(stdout)?.[0];
  if (!Number.isFinite(requests) || !Number.isFinite(perSecond))
    throw new Error(`wrk printed nothing it could read:\n${stdout}`);
  return {
    concurrency,
    requests,
    errors: errors + (socketErrors ? 1 : 0),
    statuses: {},
    durationMs: seconds * 1000,
    requestsPerSecond: perSecond,
    latencyMs: {
      count: requests,
      mean: ms(/Latency\s+(\S+)/.exec(stdout)?.[1] ?? ''),
      p50: percentile('50'),
      p90: percentile('90'),
      p99: percentile('99'),
      max: ms(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(stdout)?.[1] ?? ''),
    },
    failures: socketErrors ? [socketErrors] : [],
  };
}
