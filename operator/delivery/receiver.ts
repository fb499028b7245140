// A receiver read from a Secret (a notification's, a status page subscriber's): whether its URL
// can be posted to, and what of it must never be shown (the URL, its path, which receivers echo,
// and the signing key).
import type { SecretReader } from '../../lib/secret-reader.ts';

/** Why `url` (from `where`) cannot be posted to, or undefined when it can. */
export function receiverUrlProblem(
  url: string | undefined,
  where: string,
  credentialsHint: string,
): string | undefined {
  if (!url) return `${where} has no non-empty key url (or does not exist)`;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    return `${where}: its url is not an http:// or https:// URL`;
  if (parsed.username || parsed.password)
    return `${where}: its url has credentials in it (user:password@), which are not sent; ${credentialsHint}`;
  return undefined;
}

/** What must never be shown of a receiver: its URL, the URL's path, its key. */
export function receiverSecrets(receiver: { url: string; hmacKey?: string }): string[] {
  const { pathname, search } = new URL(receiver.url);
  const path = `${pathname}${search}`;
  return [receiver.url, ...(path.length > 1 ? [path] : []), ...(receiver.hmacKey ? [receiver.hmacKey] : [])];
}

/**
 * A receiver whose Secret holds `url` and optionally `hmacKey` (signs each body): both, or why
 * they cannot be used (no value in it).
 */
export async function readReceiver(
  secrets: SecretReader,
  namespace: string,
  secret: string,
  where: string,
): Promise<{ url: string; hmacKey?: string } | string> {
  const url = await secrets.value(namespace, secret, 'url', true);
  const problem = receiverUrlProblem(url, where, 'put a token in the path or set hmacKey');
  if (problem || !url) return problem!;
  const hmacKey = await secrets.value(namespace, secret, 'hmacKey');
  return hmacKey ? { url, hmacKey } : { url };
}
