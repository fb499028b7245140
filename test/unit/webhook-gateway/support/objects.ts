// Small builders of the objects the gateway reads, as cert-manager's test/unit/gen.
import type { BundleObject, MatchMode, WebhookObject } from '../../../../crds/index.ts';

export const NAMESPACE = 'team-web';
export const PROJECT = 'shop';

export function webhook(
  name: string,
  branch: string,
  matchMode: MatchMode = 'Exact',
  extra: Partial<WebhookObject['spec']> = {},
  project: string = PROJECT,
): WebhookObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Webhook',
    metadata: { name, namespace: NAMESPACE },
    spec: { projectRef: { name: project }, branch, matchMode, ...extra },
  };
}

export function manualBundle(name = 'shop-manual-1'): BundleObject {
  return {
    apiVersion: 'slipway.dev/v1alpha1',
    kind: 'Bundle',
    metadata: { name, namespace: NAMESPACE },
    spec: {
      projectRef: { name: PROJECT },
      source: { git: { commit: 'a'.repeat(40), branch: 'main' } },
      comment: 'first manual build',
      baseSoftware: { image: 'ghcr.io/example/craft-base:5.4' },
      directoryMap: { web: 'web', config: 'config', templates: 'templates' },
      trigger: { type: 'Manual' },
    },
  };
}
