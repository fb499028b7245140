// The status kinds' caches (the shard's): pages, components by parent and id, notices by the
// components they name and by id.
import type { StatusComponentObject, StatusNoticeObject, StatusPageObject } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import { INDEX, ns, ref, type InformerScope } from '../indexes.ts';

const byStatusId = (o: { metadata?: { namespace?: string }; spec?: { id?: number } }) =>
  o.spec?.id === undefined ? [] : [objectKey(ns(o), String(o.spec.id))];

export const statusPageInformers = (scope: InformerScope) => ({
  statusPages: scope.kind<StatusPageObject>('StatusPage', true),
  statusComponents: scope
    .kind<StatusComponentObject>('StatusComponent', true)
    .addIndex(INDEX.parent, (c) => ref(c, c.spec?.parentRef?.name))
    .addIndex(INDEX.statusId, byStatusId),
  statusNotices: scope
    .kind<StatusNoticeObject>('StatusNotice', true)
    .addIndex(INDEX.component, (n) => (n.spec?.componentRefs ?? []).map((r) => objectKey(ns(n), r.name)))
    .addIndex(INDEX.statusId, byStatusId),
});
