// What a project remembers of the bundles it pruned, so that a replayed delivery (a captured
// webhook body sent again, or the provider redelivering an old push) creates nothing once the
// bundle it made is gone: bundle names are derived from the webhook and commit (and an upload's
// content), so the same delivery always names the same bundle. The operator writes the list
// into the Project's status before it deletes; the gateway answers such a delivery as a duplicate.

/** How long a pruned bundle's name is remembered. */
export const PRUNED_BUNDLE_MEMORY_DAYS = 30;
/** The most names a project remembers (the oldest are forgotten first). */
export const PRUNED_BUNDLE_MEMORY_MAX = 1000;

export interface PrunedBundle {
  name: string;
  prunedAt: string;
}

/** The entries still within the memory's 30 days at `now`. */
function remembered(list: readonly PrunedBundle[] | undefined, now: Date): PrunedBundle[] {
  const since = now.getTime() - PRUNED_BUNDLE_MEMORY_DAYS * 86_400_000;
  return (list ?? []).filter((p) => Date.parse(p.prunedAt) >= since);
}

/** The names pruned within the memory's 30 days, as the gateway checks deliveries against them. */
export function recentlyPruned(list: readonly PrunedBundle[] | undefined, now: Date): Set<string> {
  return new Set(remembered(list, now).map((p) => p.name));
}

/** The remembered list after pruning `names` at `now`: newest first, at most 30 days and 1,000 names. */
export function rememberPruned(
  list: readonly PrunedBundle[] | undefined,
  names: readonly string[],
  now: Date,
): PrunedBundle[] {
  const fresh = names.map((name) => ({ name, prunedAt: now.toISOString() }));
  const kept = remembered(list, now).filter((p) => !names.includes(p.name));
  return [...fresh, ...kept].slice(0, PRUNED_BUNDLE_MEMORY_MAX);
}
