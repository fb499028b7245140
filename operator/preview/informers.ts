// The Preview kind's cache (the shard's): Previews by project, by the host they serve, and those
// waiting for a host another preview has.
import type { PreviewObject, PreviewReason } from '../../crds/index.ts';
import { findCondition } from '../../lib/conditions.ts';
import { INDEX, WAITING_FOR_HOST, ref, urlHost, type InformerScope } from '../indexes.ts';

export const previewInformers = (scope: InformerScope) => ({
  /** Pull requests' previews, by project. */
  previews: scope
    .kind<PreviewObject>('Preview', true)
    .addIndex(INDEX.project, (p) => ref(p, p.spec?.projectRef?.name))
    .addIndex(INDEX.host, (p) => (p.status?.url ? [urlHost(p.status.url)] : []))
    .addIndex(INDEX.waitingForHost, (p) =>
      findCondition(p.status?.conditions, 'Ready')?.reason === ('HostTaken' satisfies PreviewReason)
        ? [WAITING_FOR_HOST]
        : [],
    ),
});
