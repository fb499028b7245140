// How the CLI ends, as scripts rely on it: 0 done, 1 failed (an API error, a missing object, a
// bundle that failed), 2 usage, 3 a wait that timed out.
export const EXIT = { ok: 0, failed: 1, usage: 2, timeout: 3 } as const;

/** A command line that cannot work: printed with the command's usage, exit 2. */
export class UsageError extends Error {}

/** Something the user asked about failed or does not exist: printed, exit 1 (or `code`). */
export class CommandError extends Error {
  readonly code: number;
  constructor(message: string, code: number = EXIT.failed) {
    super(message);
    this.code = code;
  }
}
