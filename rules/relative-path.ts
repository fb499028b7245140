// A path a user names inside a tree Slipway writes or reads (a source tree, a backup volume).

/** A relative path inside the tree: no absolute paths, no `..`, no odd characters. */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.length > 1024) return false;
  if (!/^[A-Za-z0-9._\-/ ]+$/.test(path)) return false;
  return path.split('/').every((part) => part !== '..');
}
