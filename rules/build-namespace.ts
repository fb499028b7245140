// Where build Jobs run unless SLIPWAY_BUILD_NAMESPACE says otherwise (the chart's
// operator.buildNamespace), and what a bundle's build Job there is called: the operator creates
// it, the gateway reads its logs (docs/adr/0004).
import { createHash } from 'node:crypto';
import { boundedName } from '../crds/labels.ts';

export const DEFAULT_BUILD_NAMESPACE = 'slipway-builds';

/**
 * Build Jobs of every namespace share the build namespace: 16 hex characters of a hash of the
 * bundle's namespace come first (64 bits: no namespace name can be made to collide with
 * another's), so two namespaces' bundles of the same name never do. A Job name becomes a pod
 * label value, so it fits in 63 characters (boundedName).
 */
export const buildJobName = (namespace: string, bundle: string): string =>
  boundedName(`${namespaceHash(namespace)}-${bundle}`, 'build');

const namespaceHash = (namespace: string) =>
  createHash('sha256').update(namespace).digest('hex').slice(0, 16);
