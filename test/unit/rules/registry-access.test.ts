import { describe, expect, it } from '@jest/globals';
import {
  grantedAccess,
  mintRegistryCredential,
  parseScope,
  readRegistryCredential,
  registryHost,
  registryPath,
} from '../../../rules/registry-access.ts';

const KEY = 'k'.repeat(64);
const NOW = 1_800_000_000;

describe('registry credentials', () => {
  const push = { role: 'push' as const, repository: 'builds/team-a/shop', expires: NOW + 60 };

  it('reads back what it minted, until it expires', () => {
    const { username, password } = mintRegistryCredential(KEY, push);
    expect(username).toBe(`push.${NOW + 60}.builds/team-a/shop`);
    expect(readRegistryCredential(KEY, username, password, NOW)).toEqual(push);
    expect(readRegistryCredential(KEY, username, password, NOW + 61)).toBeUndefined();
  });

  it('refuses another key, a changed username and a malformed one', () => {
    const { username, password } = mintRegistryCredential(KEY, push);
    expect(readRegistryCredential('other'.repeat(10), username, password, NOW)).toBeUndefined();
    const widened = username.replace('team-a/shop', 'team-b/shop');
    expect(readRegistryCredential(KEY, widened, password, NOW)).toBeUndefined();
    expect(readRegistryCredential(KEY, `admin.${NOW + 60}.x`, password, NOW)).toBeUndefined();
    expect(readRegistryCredential(KEY, username, '', NOW)).toBeUndefined();
  });
});

describe('grantedAccess', () => {
  const ask = (...scopes: string[]) => scopes.map((s) => parseScope(s)!);
  const pull = { role: 'pull' as const, repository: 'builds/team-a', expires: NOW };
  const push = { role: 'push' as const, repository: 'builds/team-a/shop', expires: NOW };
  const open = ['slipway/*'];

  it('gives a push credential its own repository only', () => {
    expect(
      grantedAccess(
        ask('repository:builds/team-a/shop:pull,push,delete', 'repository:builds/team-a/blog:push'),
        push,
        open,
      ),
    ).toEqual([{ type: 'repository', name: 'builds/team-a/shop', actions: ['pull', 'push'] }]);
  });

  it("gives a pull credential its namespace's repositories to pull, not the namespace prefix's neighbours", () => {
    expect(
      grantedAccess(
        ask(
          'repository:builds/team-a/shop:pull,push',
          'repository:builds/team-ab/shop:pull',
          'repository:builds/team-a:pull',
        ),
        pull,
        open,
      ),
    ).toEqual([{ type: 'repository', name: 'builds/team-a/shop', actions: ['pull'] }]);
  });

  it('lets no credential push to a public repository, even its own', () => {
    const named = { role: 'push' as const, repository: 'slipway/php', expires: NOW };
    expect(grantedAccess(ask('repository:slipway/php:pull,push'), named, open)).toEqual([
      { type: 'repository', name: 'slipway/php', actions: ['pull'] },
    ]);
  });

  it('gives anyone the public repositories to pull, and nothing of the catalog', () => {
    expect(
      grantedAccess(ask('repository:slipway/php:pull,push', 'registry:catalog:*'), undefined, open),
    ).toEqual([{ type: 'repository', name: 'slipway/php', actions: ['pull'] }]);
    expect(grantedAccess(ask('repository:slipwayx/php:pull'), undefined, open)).toEqual([]);
  });
});

describe('scopes and registry names', () => {
  it('parses a scope whose name has a port-like colon', () => {
    expect(parseScope('repository:a/b:pull,push')).toEqual({
      type: 'repository',
      name: 'a/b',
      actions: ['pull', 'push'],
    });
    expect(parseScope('repository:a/b')).toBeUndefined();
    expect(parseScope('nonsense')).toBeUndefined();
  });

  it('splits a registry reference into host and path', () => {
    expect([registryHost('r.test:5000/builds/'), registryPath('r.test:5000/builds/')]).toEqual([
      'r.test:5000',
      'builds',
    ]);
    expect([registryHost('r.test'), registryPath('r.test')]).toEqual(['r.test', '']);
  });
});
