// What a component shows on the status page, in /api/v2 and in subscriber webhooks: its own
// state, or for a group (a component with parts) the worst of its own and all its parts', as
// Statuspage shows a group. /api/v1 keeps each component's stored state.
import type { ComponentState } from '../crds/index.ts';

/** How bad each state is, as Statuspage ranks them: maintenance above operational, degraded above both. */
const SEVERITY: Record<ComponentState, number> = { operational: 0, 'under-maintenance': 1, degraded: 2 };

/** The worse of two states. */
export const worseState = (a: ComponentState, b: ComponentState): ComponentState =>
  SEVERITY[b] > SEVERITY[a] ? b : a;

export interface StatedPart<K> {
  key: K;
  /** The group it is part of, or null. */
  parent: K | null;
  state: ComponentState;
}

/**
 * Each component's shown state: every part's state goes up to each group above it (a loop of
 * parents stops where it closes).
 */
export function shownStates<K>(parts: readonly StatedPart<K>[]): Map<K, ComponentState> {
  const byKey = new Map(parts.map((p) => [p.key, p]));
  const shown = new Map(parts.map((p) => [p.key, p.state]));
  for (const part of parts) {
    const seen = new Set<K>([part.key]);
    for (let up = part.parent; up !== null && !seen.has(up); up = byKey.get(up)?.parent ?? null) {
      seen.add(up);
      const group = shown.get(up);
      if (group !== undefined) shown.set(up, worseState(group, part.state));
    }
  }
  return shown;
}

interface StatedComponent {
  metadata: { name: string; deletionTimestamp?: string | Date };
  spec: { id?: number; state?: ComponentState; parentRef?: { name: string } };
}

/**
 * The shown state of each of a namespace's components, by name. Only parts the page shows count:
 * with an id, and not being deleted; a parent that does not exist is none.
 */
export function componentShownStates(all: readonly StatedComponent[]): Map<string, ComponentState> {
  const components = all.filter((c) => c.spec.id !== undefined && !c.metadata.deletionTimestamp);
  const names = new Set(components.map((c) => c.metadata.name));
  return shownStates(
    components.map((c) => ({
      key: c.metadata.name,
      parent: c.spec.parentRef && names.has(c.spec.parentRef.name) ? c.spec.parentRef.name : null,
      state: c.spec.state ?? 'operational',
    })),
  );
}

/** The groups above a component, nearest first (a loop of parents stops where it closes). */
export function groupsAbove(
  component: StatedComponent,
  get: (name: string) => StatedComponent | undefined,
): string[] {
  const above: string[] = [];
  const seen = new Set([component.metadata.name]);
  for (let up = component.spec.parentRef?.name; up !== undefined && !seen.has(up);) {
    seen.add(up);
    above.push(up);
    up = get(up)?.spec.parentRef?.name;
  }
  return above;
}

/** What one component shows among the namespace's `all` (its own state while it is not shown). */
export function shownStateOf(component: StatedComponent, all: readonly StatedComponent[]): ComponentState {
  return componentShownStates(all).get(component.metadata.name) ?? component.spec.state ?? 'operational';
}
