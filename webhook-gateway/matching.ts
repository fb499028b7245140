import type { MatchMode } from '../crds/index.ts';

/** Whether a pushed (or uploaded) branch satisfies a webhook's branch under its match mode. Case-sensitive, as git is. */
export function matchesBranch(pushed: string, branch: string, matchMode: MatchMode): boolean {
  switch (matchMode) {
    case 'Exact':
      return pushed === branch;
    case 'StartsWith':
      return pushed.startsWith(branch);
    case 'EndsWith':
      return pushed.endsWith(branch);
    case 'Contains':
      return pushed.includes(branch);
    default:
      return false;
  }
}
