// Checking the token of a delivery's URL (derived as rules/webhook-url.ts says), in constant time.
import { deriveWebhookToken } from '../rules/webhook-url.ts';
import { constantTimeEqual } from '../lib/constant-time.ts';

/**
 * The token of each slug, with the secret it was derived from: one HMAC per project and secret
 * rather than per delivery (on a busy machine the HMAC took 70-100 µs of a delivery's time in
 * the gateway). A rotated secret replaces its slug's entry; beyond MAX_TOKENS the memo starts
 * again.
 */
const derived = new Map<string, { secret: string | Buffer; token: string }>();
const MAX_TOKENS = 10_000;

const sameSecret = (a: string | Buffer, b: string | Buffer) =>
  typeof a === 'string' && typeof b === 'string'
    ? a === b
    : typeof a !== 'string' && typeof b !== 'string' && a.equals(b);

function tokenOf(secret: string | Buffer, slug: string): string {
  const memo = derived.get(slug);
  if (memo && sameSecret(memo.secret, secret)) return memo.token;
  if (!memo && derived.size >= MAX_TOKENS) derived.clear();
  const token = deriveWebhookToken(secret, slug);
  derived.set(slug, { secret, token });
  return token;
}

/** Whether `token` is the URL token of `slug` under `secret`, compared in constant time. */
export function isWebhookToken(token: string, secret: string | Buffer, slug: string): boolean {
  return constantTimeEqual(token, tokenOf(secret, slug));
}
