// Every API permission the gateway uses, and why: the single list the Helm chart's role and the
// least-privilege tests share. Adding a call to the gateway means adding its rule here.
// Its informers only list and watch (cluster-adapter.ts). It has no rule on Secrets here: the operator
// grants it `get` on exactly each namespace's webhook Secrets (operator/project/gateway-access.ts),
// which it reads by name at most once per project per 30 s (lib/secret-reader.ts).
// It records no Events.
import type { PolicyRule } from '../lib/rbac.ts';

/**
 * Granted in the build namespace (operator.buildNamespace): the logs of a bundle's build, served
 * at its status.logsUrl to whoever may get the bundle (docs/adr/0004).
 */
export const gatewayBuildNamespaceRules: readonly PolicyRule[] = [
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list'],
    why: "a bundle's build pods, by their Job's name, for its logs URL",
  },
  {
    apiGroups: [''],
    resources: ['pods/log'],
    verbs: ['get'],
    why: "the logs of a bundle's build containers, for its logs URL",
  },
];

/** Granted cluster-wide, or in SLIPWAY_WATCH_NAMESPACE only when one is set. */
export const gatewayRules: readonly PolicyRule[] = [
  {
    apiGroups: ['slipway.dev'],
    resources: ['previews'],
    verbs: ['get', 'create', 'patch', 'delete'],
    why: "a pull request's Preview: made when it opens, its head commit and labels updated on each delivery (read first when it exists), deleted when it closes",
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['projects', 'webhooks', 'bundles'],
    verbs: ['list', 'watch'],
    why: 'informers: projects by slug, their webhooks and their latest manual bundle',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['bundles'],
    verbs: ['create', 'get'],
    why: 'a Bundle per matching webhook of a push, or per upload; when one exists under its name, whether it is the same build (a redelivery) or another (409)',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['environments'],
    verbs: ['deploy'],
    why: "the admission policy slipway-bundle-references lets a Bundle name an Environment only for those allowed to deploy to it: a push's bundle deploys where its Webhook says",
  },
];
