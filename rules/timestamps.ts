// Timestamps inside the model are milliseconds since the epoch; the API writes them as ISO 8601
// UTC with milliseconds (2026-01-02T03:04:05.000Z), whatever offset the resource used.

/** Milliseconds of an RFC 3339 timestamp, or null when absent or unreadable. */
export function parseTime(value: string | undefined | null): number | null {
  return value ? (timeMs(value) ?? null) : null;
}

/** Milliseconds of a timestamp as strings arrive from watches and Dates from typed reads; undefined when absent or unreadable. */
export function timeMs(t: Date | string | undefined | null): number | undefined {
  if (t === undefined || t === null) return undefined;
  const ms = typeof t === 'string' ? Date.parse(t) : t.getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function formatOptionalTime(ms: number | null): string | null {
  return ms === null ? null : formatTime(ms);
}

interface ManagedFieldsEntry {
  time?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

/**
 * When a person (or tool) last changed the object's spec: the newest managedFields entry that
 * owns spec fields, ignoring status writes (the operator assigning an id is not an update a
 * reader cares about). Null when the feeder stripped managedFields.
 */
export function lastSpecChange(metadata: object): number | null {
  const entries = (metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [];
  let newest: number | null = null;
  for (const entry of entries) {
    if (entry.subresource !== undefined && entry.subresource !== '') continue;
    if (entry.fieldsV1 !== undefined && !('f:spec' in entry.fieldsV1)) continue;
    const at = parseTime(entry.time);
    if (at !== null && (newest === null || at > newest)) newest = at;
  }
  return newest;
}

/** creationTimestamp in ms; 0 when absent (only hand-made objects lack it). */
export function createdAt(metadata: { creationTimestamp?: string }): number {
  return parseTime(metadata.creationTimestamp) ?? 0;
}

/** The later of creation and the last spec change. */
export function updatedAt(metadata: { creationTimestamp?: string }): number {
  return Math.max(createdAt(metadata), lastSpecChange(metadata) ?? 0);
}
