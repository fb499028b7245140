import { describe, expect, it } from '@jest/globals';
import type { MatchMode } from '../../../crds/index.ts';
import { matchesBranch } from '../../../webhook-gateway/matching.ts';

describe('matchesBranch', () => {
  it.each<[string, string, MatchMode, boolean]>([
    ['main', 'main', 'Exact', true],
    ['main-2', 'main', 'Exact', false],
    ['Main', 'main', 'Exact', false],
    ['feature/main', 'main', 'Exact', false],
    ['release/1.2', 'release/', 'StartsWith', true],
    ['release', 'release/', 'StartsWith', false],
    ['hotfix/release/1', 'release/', 'StartsWith', false],
    ['main', 'main', 'StartsWith', true],
    ['feature/login-staging', '-staging', 'EndsWith', true],
    ['staging-feature', '-staging', 'EndsWith', false],
    ['main', 'main', 'EndsWith', true],
    ['feature/JIRA-12/x', 'JIRA-', 'Contains', true],
    ['feature/jira-12', 'JIRA-', 'Contains', false],
    ['main', 'main', 'Contains', true],
    ['mai', 'main', 'Contains', false],
  ])('%s against %s (%s) → %s', (pushed, branch, mode, expected) => {
    expect(matchesBranch(pushed, branch, mode)).toBe(expected);
  });

  it('matches nothing under an unknown mode', () => {
    expect(matchesBranch('main', 'main', 'Regex' as MatchMode)).toBe(false);
  });
});
