// Every API permission the status API uses, and why: the single list the Helm chart's Role and
// the least-privilege tests share. It is read-only: informers on the three status kinds of
// one namespace (watch.ts), so a request never reads the API server.
import type { PolicyRule } from '../lib/rbac.ts';

/** Granted in the status namespace (SLIPWAY_STATUS_NAMESPACE) only. */
export const statusApiRules: readonly PolicyRule[] = [
  {
    apiGroups: ['slipway.dev'],
    resources: ['statuspages', 'statuscomponents', 'statusnotices'],
    verbs: ['list', 'watch'],
    why: 'informers of the status page, its components and notices',
  },
];
