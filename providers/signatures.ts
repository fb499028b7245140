// The two ways providers authenticate a delivery. Every comparison is constant-time; a failure
// never says which part was wrong.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../lib/constant-time.ts';

/** `sha256=<hex HMAC-SHA256(secret, body)>`, the format of GitHub and Bitbucket. */
export function hmacSignatureMatches(header: string | undefined, body: Buffer, secret: string): boolean {
  return hexHmacMatches(header, body, secret, 'sha256=');
}

/** `<prefix><hex HMAC-SHA256(secret, body)>`; Gitea's has no prefix. */
export function hexHmacMatches(
  header: string | undefined,
  body: Buffer,
  secret: string,
  prefix = '',
): boolean {
  if (header === undefined) return false;
  const expected = prefix + createHmac('sha256', secret).update(body).digest('hex');
  return constantTimeEqual(header.trim().toLowerCase(), expected);
}

/** The secret itself in a header (GitLab's token, Azure DevOps' custom header). */
export function matchesSecret(header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  return constantTimeEqual(header.trim(), secret);
}
