// Which status objects the controllers look at again when something they depend on changes.
import { objectKey } from '../../lib/informer.ts';
import { groupsAbove } from '../../rules/group-state.ts';
import type { OperatorInformers } from '../informers.ts';
import { INDEX } from '../informers.ts';
import type { Controller } from '../reconcile/controller.ts';

/** The entries of `o`'s namespace with its id (itself included). */
function sameIdKey(o: { metadata: { namespace: string }; spec: { id?: number } }): string | undefined {
  return o.spec.id === undefined ? undefined : objectKey(o.metadata.namespace, String(o.spec.id));
}

/** Maps every change to the objects whose answer it can change. */
export function watchStatusPageEntries(
  informers: Pick<OperatorInformers, 'statusPages' | 'statusComponents' | 'statusNotices'>,
  components: Controller,
  notices: Controller,
  pages?: Controller,
): void {
  const { statusPages, statusComponents, statusNotices } = informers;
  const all = (namespace: string) => {
    for (const p of statusPages.list(namespace)) pages?.enqueue(namespace, p.metadata.name);
    for (const c of statusComponents.list(namespace)) components.enqueue(namespace, c.metadata.name);
    for (const n of statusNotices.list(namespace)) notices.enqueue(namespace, n.metadata.name);
  };
  // The entries depend on a page's existence and spec, not on its status (which the webhook
  // sender writes often): a status-only change looks at the page alone.
  // (By uid too: a page deleted and made again while the watch was away comes back as an update.)
  const seen = new Map<string, string>();
  statusPages.onEvent((p, type) => {
    const key = objectKey(p.metadata.namespace, p.metadata.name);
    const before = seen.get(key);
    const now = `${p.metadata.uid}/${p.metadata.generation}`;
    if (type === 'delete') seen.delete(key);
    else seen.set(key, now);
    if (type === 'update' && before === now) pages?.enqueue(p.metadata.namespace, p.metadata.name);
    else all(p.metadata.namespace);
  });
  // Each component's group when last seen: a part that moves changes what its old group shows.
  const lastParent = new Map<string, string | undefined>();
  statusComponents.onEvent((c, type) => {
    const { namespace, name } = c.metadata;
    const key = objectKey(namespace, name);
    const before = lastParent.get(key);
    if (type === 'delete') lastParent.delete(key);
    else lastParent.set(key, c.spec.parentRef?.name);
    if (before !== undefined && before !== c.spec.parentRef?.name) {
      components.enqueue(namespace, before);
      const old = statusComponents.get(namespace, before);
      if (old)
        for (const group of groupsAbove(old, (n) => statusComponents.get(namespace, n)))
          components.enqueue(namespace, group);
    }
    components.enqueue(namespace, name);
    for (const child of statusComponents.byIndex(INDEX.parent, objectKey(namespace, name)))
      components.enqueue(namespace, child.metadata.name);
    // A part's state shows in every group above it.
    for (const group of groupsAbove(c, (n) => statusComponents.get(namespace, n)))
      components.enqueue(namespace, group);
    for (const n of statusNotices.byIndex(INDEX.component, objectKey(namespace, name)))
      notices.enqueue(namespace, n.metadata.name);
    // An id freed or taken can settle a DuplicateId elsewhere in the namespace.
    const idKey = sameIdKey(c);
    if (idKey)
      for (const other of statusComponents.byIndex(INDEX.statusId, idKey))
        components.enqueue(namespace, other.metadata.name);
  });
  statusNotices.onEvent((n) => {
    notices.enqueue(n.metadata.namespace, n.metadata.name);
    const key = sameIdKey(n);
    if (key)
      for (const other of statusNotices.byIndex(INDEX.statusId, key))
        notices.enqueue(n.metadata.namespace, other.metadata.name);
  });
}
