// What several commands say about bundles: one line per phase (as upload.sh prints them), and
// following a bundle until its chain ends.
import { escapeControlCharacters } from '../rules/text.ts';
import { isFinished } from '../rules/bundle-outcome.ts';
import type { BundleObject } from '../crds/index.ts';
import { duration } from './commands/command.ts';
import type { CliContext } from './context.ts';
import { readObject, readyOf } from './read.ts';
import { CommandError, EXIT } from './errors.ts';

/** "Building (Building): build Job shop-1-build is running" */
export function phaseLine(b: BundleObject): string {
  const ready = readyOf(b);
  const phase = b.status?.phase ?? 'Pending';
  // The message may quote a failed build's output (user code): never raw terminal controls.
  const line = `${phase}${ready?.reason ? ` (${ready.reason})` : ''}${ready?.message ? `: ${ready.message}` : ''}`;
  return escapeControlCharacters(line);
}

/** Whether a finished bundle ended well. */
export const succeeded = (b: BundleObject): boolean =>
  b.status?.phase === 'Ready' || b.status?.phase === 'Built';

/** The commit a bundle builds (git, or the upload's), cut to 12; a rollback's "(<bundle it reuses>)". */
export const commitOf = (b: BundleObject): string => {
  const commit = b.spec.source.git?.commit ?? b.spec.source.archive?.commit;
  if (commit !== undefined) return commit.slice(0, 12);
  return b.spec.source.bundleRef ? `(${b.spec.source.bundleRef.name})` : '';
};

/**
 * Prints each new phase of the bundle until its chain ends; resolves with the exit code: 0 when
 * it ended well, 1 when it failed or was superseded, 3 when `timeoutMs` passed first.
 */
export async function followBundle(
  ctx: CliContext,
  namespace: string,
  name: string,
  timeoutMs: number,
  print = true,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    let bundle: BundleObject;
    try {
      bundle = await withDeadline(readObject<BundleObject>({ ...ctx, namespace }, 'Bundle', name), deadline);
    } catch (error) {
      // A missing bundle is an answer; an unreachable API server is not (yet): ask again.
      if (error instanceof CommandError || Date.now() >= deadline)
        throw timedOutOr(error, name, timeoutMs, last);
      if (print)
        ctx.err(`warning: reading bundle ${name} failed (${(error as Error).message}); trying again`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      continue;
    }
    const line = phaseLine(bundle);
    if (print && line !== last) ctx.err(`bundle ${name}: ${line}`);
    last = line;
    if (isFinished(bundle)) {
      if (succeeded(bundle)) return EXIT.ok;
      throw new CommandError(`bundle ${name} ended ${line}`);
    }
    if (Date.now() >= deadline)
      throw new CommandError(
        `bundle ${name} has not finished after ${Math.round(timeoutMs / 1000)} s: ${line}`,
        EXIT.timeout,
      );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Rejects with DeadlineError once `deadline` (epoch ms) passes before `promise` settles. */
class DeadlineError extends Error {}
function withDeadline<T>(promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DeadlineError('no answer in time')),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function timedOutOr(error: unknown, name: string, timeoutMs: number, last: string): Error {
  if (error instanceof CommandError) return error;
  return new CommandError(
    `bundle ${name} has not finished after ${Math.round(timeoutMs / 1000)} s${last ? `: ${last}` : ` (the API server did not answer: ${(error as Error).message})`}`,
    EXIT.timeout,
  );
}

/** The flags of commands that can follow what they create. */
export const WAIT_OPTIONS = { wait: { type: 'boolean' }, timeout: { type: 'string' } } as const;

/** With --wait, follows the bundle just created (exit code as `wait`); otherwise done. */
export async function followIfAsked(
  ctx: CliContext,
  name: string,
  values: Record<string, string | boolean | undefined>,
): Promise<number | undefined> {
  if (values.wait !== true) return undefined;
  const timeout = typeof values.timeout === 'string' ? values.timeout : undefined;
  return followBundle(ctx, ctx.namespace, name, duration(timeout, 30 * 60_000));
}
