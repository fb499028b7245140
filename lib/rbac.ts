// The shape of the RBAC-as-data lists (operator/rbac.ts, webhook-gateway/rbac.ts,
// status-api/rbac.ts): each process lists every API permission it uses, and why. The chart's
// rules are generated from these lists and the least-privilege tests grant exactly them.

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  /** Why the process needs it (for the chart's comments and reviewers). */
  why: string;
}

/** The rules as Kubernetes PolicyRule objects (without the `why`). */
export function asKubernetesRules(rules: readonly PolicyRule[]) {
  return rules.map(({ apiGroups, resources, verbs }) => ({ apiGroups, resources, verbs }));
}
