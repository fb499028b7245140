// Writes a pull request's Preview as a delivery or a look at the provider found it: the
// gateway for each pull-request delivery, the operator for each pull request of its periodic
// look (operator/preview/poll.ts). Pull requests are few: the stored Preview is read when the
// create finds one, not cached.
import type { PreviewObject } from '../crds/index.ts';
import { deliveredSpec } from '../rules/preview-plan.ts';
import { isAlreadyExists, isNotFound, type SlipwayApi } from './kube.ts';

/** Make or update a Preview (its delivered spec), or remove one. */
export type PreviewChange =
  { kind: 'apply'; preview: PreviewObject } | { kind: 'remove'; namespace: string; name: string };
/** `unchanged`: the Preview already says what the delivery does; `absent`: there was none to remove. */
export type PreviewWriteResult = 'created' | 'updated' | 'unchanged' | 'removed' | 'absent';
/** Rejects when the API is unavailable. */
export type WritePreview = (change: PreviewChange) => Promise<PreviewWriteResult>;

/**
 * Makes a Preview, or brings the one of that name to what the delivery says (its delivered spec:
 * a person's spec.approvedCommit stays), or deletes one. Pull-request deliveries are few: the
 * stored Preview is read when the create finds one, not cached.
 */
export function previewWriter(slipway: SlipwayApi): WritePreview {
  return async (change) => {
    if (change.kind === 'remove') {
      try {
        await slipway.delete('Preview', change.namespace, change.name);
        return 'removed';
      } catch (err) {
        if (isNotFound(err)) return 'absent';
        throw err;
      }
    }
    const { preview } = change;
    const { namespace, name } = preview.metadata;
    try {
      await slipway.add('Preview', preview);
      return 'created';
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    const stored = await slipway.get<PreviewObject>('Preview', namespace, name);
    const wanted = deliveredSpec(preview.spec);
    const differs = (Object.keys(wanted) as Array<keyof typeof wanted>).some(
      (k) => JSON.stringify(stored.spec[k]) !== JSON.stringify(wanted[k]),
    );
    if (!differs) return 'unchanged';
    await slipway.patch('Preview', namespace, name, { spec: wanted });
    return 'updated';
  };
}
