// A failed container's last output in a condition message, after a fixed mark: the bundle's
// status shows it to whoever may get the bundle, and the public bundle status URL (no
// credentials) shows the message up to the mark only, since a build step prints whatever the
// code it runs prints (environment values, paths, a tenant's secrets).

const MARK = '; its output ends: ';

/** `summary`, then the output after the mark (nothing when there is none). */
export function withOutput(summary: string, output: string): string {
  return output ? `${summary}${MARK}${output}` : summary;
}

/** `message` without the output withOutput put in it (ours comes first, before any it quotes). */
export function withoutOutput(message: string): string {
  const at = message.indexOf(MARK);
  return at < 0 ? message : `${message.slice(0, at)} (its output is in the build's logs)`;
}
