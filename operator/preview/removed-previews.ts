// The previews this operator saw go while their pull request was still open at the same head
// commit (idle past idleHours, `kubectl slipway preview remove`): its periodic look at the open
// pull requests (poll.ts) does not make them again — a new push, or any delivery, does. Kept in
// memory (a restart forgets, and a look may then make one once more), a week at most.
import type { PreviewObject } from '../../crds/index.ts';

const KEEP_MS = 7 * 24 * 3_600_000;
const MAX = 1_000;

export class RemovedPreviews {
  readonly #removed = new Map<string, { commit: string; at: number }>();

  remember(preview: PreviewObject, now: number): void {
    this.#removed.delete(
      keyOf(preview.metadata.namespace, preview.spec.projectRef.name, preview.spec.number),
    );
    this.#removed.set(keyOf(preview.metadata.namespace, preview.spec.projectRef.name, preview.spec.number), {
      commit: preview.spec.headCommit,
      at: now,
    });
    for (const [key, entry] of this.#removed)
      if (this.#removed.size > MAX || now - entry.at > KEEP_MS) this.#removed.delete(key);
      else break;
  }

  /** Whether pull request `number` went at this very head commit. */
  wentAt(namespace: string, project: string, number: number, commit: string, now: number): boolean {
    const entry = this.#removed.get(keyOf(namespace, project, number));
    return entry !== undefined && entry.commit === commit && now - entry.at <= KEEP_MS;
  }
}

const keyOf = (namespace: string, project: string, number: number) => `${namespace}/${project}#${number}`;
