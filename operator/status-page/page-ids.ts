// The page's id high-water marks (ids.ts): raised in the StatusPage's annotations, read from the
// API server (not the cache) so that its resourceVersion guards the mark against a concurrent
// writer (a conflict is retried with back-off). One instance serves the component and notice
// controllers, so only one of them writes a page's marks at a time in this process.
import type { StatusPageObject } from '../../crds/index.ts';
import type { SlipwayApi } from '../../lib/kube.ts';
import { KeyedMutex } from '../reconcile/keyed-mutex.ts';
import type { PageEntryKind } from './decide.ts';
import { LAST_ID_ANNOTATION } from './ids.ts';

export class PageIds {
  readonly #slipway: SlipwayApi;
  readonly #locks = new KeyedMutex();

  constructor(slipway: SlipwayApi) {
    this.#slipway = slipway;
  }

  /** Moves the page's mark for `kind` to `next(current mark)` and returns it. */
  raise(
    kind: PageEntryKind,
    namespace: string,
    pageName: string,
    next: (mark: string | undefined) => number,
  ): Promise<number> {
    return this.#locks.run(`${namespace}/${pageName}`, async () => {
      const annotation = LAST_ID_ANNOTATION[kind];
      const fresh = await this.#slipway.get<StatusPageObject>('StatusPage', namespace, pageName);
      const current = fresh.metadata.annotations?.[annotation];
      const id = next(current);
      if (String(id) !== current) {
        await this.#slipway.patch('StatusPage', namespace, pageName, {
          metadata: {
            resourceVersion: fresh.metadata.resourceVersion,
            annotations: { [annotation]: String(id) },
          },
        });
      }
      return id;
    });
  }

  /** An id set by hand also counts as used for good, so it is never handed out after its object is gone. */
  async recordHandSet(kind: PageEntryKind, page: StatusPageObject | undefined, id: number): Promise<void> {
    const mark = Number(page?.metadata.annotations?.[LAST_ID_ANNOTATION[kind]] ?? 0);
    if (!page || mark >= id) return;
    await this.raise(kind, page.metadata.namespace, page.metadata.name, (current) =>
      Math.max(Number(current ?? 0) || 0, id),
    );
  }
}
