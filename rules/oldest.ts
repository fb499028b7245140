// Which of several objects of a namespace counts when only one may (the one StatusPage of a
// namespace): the oldest, then by name.
export function oldest<T extends { metadata: { name: string; creationTimestamp?: string } }>(
  list: readonly T[],
): T | undefined {
  return [...list].sort(
    (a, b) =>
      (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
      a.metadata.name.localeCompare(b.metadata.name),
  )[0];
}
