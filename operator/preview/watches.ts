// What makes the Preview controller look at a preview again: the preview itself (and, when one
// goes, the project's others, which may now have a slot; when its host is taken or let go, the
// namespace's others at that host or waiting for one), its Project and previews Environment,
// its bundles and the project's manual bundles (their build settings), and the Deployment copy
// that serves it.
import { objectKey } from '../../lib/informer.ts';
import type { OperatorContext } from '../context.ts';
import { INDEX, urlHost, WAITING_FOR_HOST } from '../informers.ts';
import type { Controller } from '../reconcile/controller.ts';
import type { RemovedPreviews } from './removed-previews.ts';

export function watchForPreviews(
  ctx: OperatorContext,
  controller: Controller,
  removed: RemovedPreviews,
): void {
  const { informers } = ctx;
  const ofProject = (namespace: string | undefined, project: string | undefined) => {
    if (!namespace || !project) return;
    for (const p of informers.previews.byIndex(INDEX.project, objectKey(namespace, project)))
      controller.enqueue(p.metadata.namespace, p.metadata.name);
  };
  informers.previews.onEvent((p, type) => {
    controller.enqueue(p.metadata.namespace, p.metadata.name);
    // A host taken or let go: the previews that share it, or wait for one, in any namespace.
    const sharing = p.status?.url ? informers.previews.byIndex(INDEX.host, urlHost(p.status.url)) : [];
    for (const other of [...sharing, ...informers.previews.byIndex(INDEX.waitingForHost, WAITING_FOR_HOST)])
      controller.enqueue(other.metadata.namespace, other.metadata.name);
    if (type === 'delete') {
      removed.remember(p, ctx.now().getTime());
      ofProject(p.metadata.namespace, p.spec?.projectRef?.name);
    }
  });
  informers.projects.onEvent((p) => ofProject(p.metadata.namespace, p.metadata.name));
  informers.environments.onEvent((e) => ofProject(e.metadata.namespace, e.spec?.projectRef?.name));
  informers.bundles.onEvent((b) => {
    const preview = b.spec?.trigger?.previewRef?.name;
    if (preview) controller.enqueue(b.metadata.namespace, preview);
    else if (b.spec?.trigger?.type === 'Manual') ofProject(b.metadata.namespace, b.spec.projectRef?.name);
  });
  informers.deployments.onEvent((d) => {
    const owner = d.metadata?.ownerReferences?.find((o) => o.kind === 'Preview' && o.controller);
    if (owner) controller.enqueue(d.metadata?.namespace, owner.name);
  });
}
