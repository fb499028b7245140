// Loads the provider deliveries in ../fixtures/providers (provenance: SOURCES.md there) and
// re-signs them for a test secret, the way the provider would have with that secret.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const FIXTURE_DIR = new URL('../fixtures/providers/', import.meta.url);
/** The secret the fixtures' own signatures were computed with (GitHub's documented test secret). */
export const DOCUMENTED_SECRET = "It's a Secret to Everybody";
export const TEST_SECRET = 'slipway-test-secret-3f9c1a7e0b';

export interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

/** The fixture as captured: lower-case header names, comments dropped. */
export function loadFixture(name: string): Delivery {
  const body = readFileSync(new URL(`${name}.body`, FIXTURE_DIR));
  const headers: Record<string, string> = {};
  for (const line of readFileSync(new URL(`${name}.headers.txt`, FIXTURE_DIR), 'utf8').split('\n')) {
    if (line.startsWith('#') || !line.includes(':')) continue;
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  return { headers, body };
}

/** The fixture with every credential the provider sends recomputed for `secret`. */
export function signedFixture(name: string, secret: string = TEST_SECRET): Delivery {
  const delivery = loadFixture(name);
  return { headers: resign(delivery.headers, delivery.body, secret), body: delivery.body };
}

export function resign(
  headers: Record<string, string>,
  body: Buffer,
  secret: string,
): Record<string, string> {
  const signed = { ...headers };
  delete signed['content-length'];
  delete signed['x-hub-signature']; // GitHub's SHA-1 header is not used
  const hmac = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  if ('x-hub-signature-256' in headers) signed['x-hub-signature-256'] = hmac;
  if ('x-hub-signature' in headers && !('x-github-event' in headers)) signed['x-hub-signature'] = hmac;
  const hex = createHmac('sha256', secret).update(body).digest('hex');
  for (const name of ['x-gitea-signature', 'x-gogs-signature']) if (name in headers) signed[name] = hex;
  if ('x-gitlab-token' in headers) signed['x-gitlab-token'] = secret;
  if ('x-provider-service-key' in headers) signed['x-provider-service-key'] = secret;
  return signed;
}

export const ALL_FIXTURES = [
  'azure-devops-git-push',
  'bitbucket-repo-push',
  'bitbucket-repo-push-captured',
  'bitbucket-repo-push-branch-deleted',
  'bitbucket-repo-push-tag-created',
  'bitbucket-server-repo-refs-changed',
  'bitbucket-server-repo-refs-changed-branch-deleted',
  'gitea-push',
  'gitea-push-branch-created',
  'gitea-push-tag-created',
  'github-ping',
  'github-push',
  'github-push-branch-created',
  'github-push-branch-deleted',
  'github-push-tag-created',
  'github-push-tag-deleted',
  'gitlab-push',
  'gitlab-push-branch-deleted',
  'gitlab-tag-push',
] as const;
