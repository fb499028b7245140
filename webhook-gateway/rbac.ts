// Every API permission the gateway uses, and why: the single list the Helm chart's role and the
// least-privilege tests share. Adding a call to the gateway means adding its rule here.
// Its informers only list and watch (directory.ts); webhook Secrets are read by name, at most once
// per project per 30 s (secret-reader.ts): the internet-facing gateway cannot list Secrets.
// It records no Events.
import type { PolicyRule } from '../lib/rbac.ts';

/** Granted cluster-wide, or in SLIPWAY_WATCH_NAMESPACE only when one is set. */
export const gatewayRules: readonly PolicyRule[] = [
  {
    apiGroups: ['slipway.dev'],
    resources: ['projects', 'webhooks', 'bundles'],
    verbs: ['list', 'watch'],
    why: 'informers: projects by slug, their webhooks and their latest manual bundle',
  },
  {
    apiGroups: ['slipway.dev'],
    resources: ['bundles'],
    verbs: ['create'],
    why: 'a Bundle per matching webhook of a push, or per upload',
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get'],
    why: "a project's webhook Secret by name (its status.webhook.secretRef), to verify deliveries",
  },
];
