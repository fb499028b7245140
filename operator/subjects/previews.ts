// What the sinks about previews share (a preview's comment and status on its pull request, its
// notifications): a lane per Preview (`namespace/name`) and the Preview it names.
import type { PreviewObject } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';

/** A preview lane's Preview (`namespace/name`), with the status this process last wrote. */
export function lanePreview(ctx: OperatorContext, lane: string): PreviewObject | undefined {
  const [namespace = '', name = ''] = lane.split('/');
  const cached = ctx.informers.previews.get(namespace, name);
  return cached && { ...cached, status: ctx.status.current(cached) };
}
