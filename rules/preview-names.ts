// The names a pull request's preview goes by, the same in the gateway (which makes the Preview),
// the operator (which makes what serves it) and the CLI (`kubectl slipway preview approve
// <project> <number>`).
import { boundedName } from '../crds/labels.ts';

/** The Preview of pull request `number` of `project`: `<project>-pr-<number>`, at most 63 characters. */
export function previewName(project: string, number: number): string {
  return boundedName(project, `pr-${number}`, 63);
}

/** The copy of an environment's `object` (a Deployment, a Service) for pull request `number`. */
export function previewObjectName(object: string, number: number): string {
  return boundedName(object, `pr-${number}`, 63);
}
