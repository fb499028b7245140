// Who may do what in the registry builds push to (docs/adr/0006): a contract between the
// operator, which mints each build a credential for its own repositories, and the gateway, which
// trades a credential for a registry token (the distribution token-auth protocol). The credential
// is stateless: its username says what it allows and until when, its password is an HMAC of the
// username under the key both processes share, so the gateway checks it without an API call.
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `push`: pull and push on exactly `repository` (a build's push containers: its image and its
 * cache). `pull`: pull on the repositories under `repository/` (a build's own namespace).
 */
export type RegistryRole = 'push' | 'pull';

export interface RegistryCredential {
  role: RegistryRole;
  /** A repository path in the registry, without host: `builds/<namespace>/<project>` or `builds/<namespace>`. */
  repository: string;
  /** Unix seconds after which the credential is refused. */
  expires: number;
}

/** One entry of a token's `access` claim, and of a request's `scope`. */
export interface RegistryAccess {
  type: string;
  name: string;
  actions: string[];
}

// Keeps these HMACs apart from anything else signed with the same key (archive URLs).
const PURPOSE = 'slipway registry credential\n';
const USERNAME = /^(push|pull)\.(\d{1,12})\.([a-z0-9][a-z0-9._/-]*)$/;

function passwordOf(key: string | Buffer, username: string): string {
  return createHmac('sha256', key)
    .update(PURPOSE + username)
    .digest('base64url');
}

/** The username and password of a credential, for a dockerconfigjson Secret. */
export function mintRegistryCredential(
  key: string | Buffer,
  credential: RegistryCredential,
): { username: string; password: string } {
  const username = `${credential.role}.${credential.expires}.${credential.repository}`;
  if (!USERNAME.test(username)) throw new Error(`not a registry repository: ${credential.repository}`);
  return { username, password: passwordOf(key, username) };
}

/** The credential a username and password prove, or undefined (forged, malformed or expired). */
export function readRegistryCredential(
  key: string | Buffer,
  username: string,
  password: string,
  nowSeconds: number,
): RegistryCredential | undefined {
  const match = USERNAME.exec(username);
  if (!match) return undefined;
  const expected = Buffer.from(passwordOf(key, username));
  const given = Buffer.from(password);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const expires = Number(match[2]);
  if (expires < nowSeconds) return undefined;
  return { role: match[1] as RegistryRole, repository: match[3]!, expires };
}

/** A `scope` parameter (`repository:builds/a/site:pull,push`), or undefined when malformed. */
export function parseScope(scope: string): RegistryAccess | undefined {
  const first = scope.indexOf(':');
  const last = scope.lastIndexOf(':');
  if (first <= 0 || last === first) return undefined;
  const name = scope.slice(first + 1, last);
  const actions = scope
    .slice(last + 1)
    .split(',')
    .filter(Boolean);
  if (!name || actions.length === 0) return undefined;
  return { type: scope.slice(0, first), name, actions };
}

/** Whether `name` matches one of `patterns`: an exact repository, or `prefix/*` for those under it. */
export function isPublicRepository(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('/*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/**
 * What a token may allow of what was asked: per repository, the asked actions the credential
 * (undefined: anonymous) grants. Public repositories are pulled by anyone and pushed by no one;
 * nothing else is granted, not even to a valid credential (no catalog, no other namespace, no
 * delete).
 */
export function grantedAccess(
  requested: readonly RegistryAccess[],
  credential: RegistryCredential | undefined,
  publicRepositories: readonly string[],
): RegistryAccess[] {
  const granted: RegistryAccess[] = [];
  for (const ask of requested) {
    if (ask.type !== 'repository') continue;
    const allowed = new Set<string>();
    const open = isPublicRepository(ask.name, publicRepositories);
    if (open) allowed.add('pull');
    // Everyone pulls a public repository: no build writes one, even one its own path names.
    if (credential?.role === 'push' && ask.name === credential.repository && !open) {
      allowed.add('pull');
      allowed.add('push');
    }
    if (credential?.role === 'pull' && ask.name.startsWith(`${credential.repository}/`)) allowed.add('pull');
    const actions = ask.actions.filter((a) => allowed.has(a));
    if (actions.length > 0)
      granted.push({ type: 'repository', name: ask.name, actions: [...new Set(actions)] });
  }
  return granted;
}

/** `host[:port]/path` → the path: the repository prefix of a registry reference (`builds`), or ''. */
export function registryPath(registry: string): string {
  const slash = registry.indexOf('/');
  return slash < 0 ? '' : registry.slice(slash + 1).replace(/\/+$/, '');
}

/** `host[:port]/path` → `host[:port]`. */
export function registryHost(registry: string): string {
  const slash = registry.indexOf('/');
  return slash < 0 ? registry : registry.slice(0, slash);
}
