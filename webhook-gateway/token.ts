// Checking the token of a delivery's URL (derived as crds/webhook-url.ts says), in constant time.
import { deriveWebhookToken } from '../crds/webhook-url.ts';
import { constantTimeEqual } from './constant-time.ts';

/**
 * Derived tokens by slug and secret: one HMAC per project and secret rather than per delivery
 * (on a busy machine the HMAC took 70-100 µs of a delivery's time in the gateway). A rotated
 * secret is a new key; beyond MAX_TOKENS the memo starts again.
 */
const derived = new Map<string, string>();
const MAX_TOKENS = 10_000;

function tokenOf(secret: string | Buffer, slug: string): string {
  const key = `${slug}\n${typeof secret === 'string' ? secret : secret.toString('base64')}`;
  let token = derived.get(key);
  if (token === undefined) {
    if (derived.size >= MAX_TOKENS) derived.clear();
    token = deriveWebhookToken(secret, slug);
    derived.set(key, token);
  }
  return token;
}

/** Whether `token` is the URL token of `slug` under `secret`, compared in constant time. */
export function isWebhookToken(token: string, secret: string | Buffer, slug: string): boolean {
  return constantTimeEqual(token, tokenOf(secret, slug));
}
