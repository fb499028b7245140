// Checking the token of a delivery's URL (derived as crds/webhook-url.ts says), in constant time.
import { deriveWebhookToken } from '../crds/webhook-url.ts';
import { constantTimeEqual } from './constant-time.ts';

/** Whether `token` is the URL token of `slug` under `secret`, compared in constant time. */
export function isWebhookToken(token: string, secret: string | Buffer, slug: string): boolean {
  return constantTimeEqual(token, deriveWebhookToken(secret, slug));
}
