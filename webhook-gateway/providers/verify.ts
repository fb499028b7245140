// Authenticates a delivery over its raw body, one branch per provider (as Flux's receiver does).
// Every comparison is constant-time; a failure never says which part was wrong.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../constant-time.ts';
import type { GitProvider } from '../../crds/project.ts';
import { headerValue, type DeliverySource, type RequestHeaders } from './types.ts';

/**
 * Whether the delivery is authentic. `expected` is the project's provider (spec.provider, or its
 * repository's host): a delivery dressed as any other provider fails, and no delivery
 * is ever accepted on the URL token alone (every provider can sign or send the secret).
 */
export function verifyDelivery(
  source: DeliverySource,
  headers: RequestHeaders,
  body: Buffer,
  secret: string,
  expected: GitProvider | undefined,
): boolean {
  const provider = source === 'bitbucket-server' ? 'bitbucket' : source;
  if (expected !== undefined && provider !== expected) return false;
  switch (source) {
    case 'github':
      // Signing is not optional: the secret is set in GitHub's webhook form.
      return hmacSignatureMatches(headerValue(headers, 'x-hub-signature-256'), body, secret);
    case 'gitlab':
      return matchesSecret(headerValue(headers, 'x-gitlab-token'), secret);
    case 'bitbucket':
    case 'bitbucket-server': {
      // Bitbucket signs when a secret is entered in its webhook form; an unsigned delivery
      // would be authenticated by the URL alone, so it is refused.
      return hmacSignatureMatches(headerValue(headers, 'x-hub-signature'), body, secret);
    }
    case 'azure-devops':
      return matchesSecret(headerValue(headers, 'x-provider-service-key'), secret);
  }
}

/** `sha256=<hex HMAC-SHA256(secret, body)>`, the format of GitHub and Bitbucket. */
function hmacSignatureMatches(header: string | undefined, body: Buffer, secret: string): boolean {
  if (header === undefined) return false;
  const expected = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  return constantTimeEqual(header.trim().toLowerCase(), expected);
}

function matchesSecret(header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  return constantTimeEqual(header.trim(), secret);
}
