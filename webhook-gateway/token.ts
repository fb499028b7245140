// The secret part of a project's webhook URL, `/hooks/{slug}/{token}`. The operator writes the URL
// to the Project's status and the gateway recomputes it per request, so neither stores it, and it
// changes when the secret rotates. The URL is a credential: never log it or use it as a label.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from './constant-time.ts';
import { WEBHOOK_URL_TOKEN_LENGTH } from './limits.ts';

const TOKEN_CONTEXT = 'slipway-webhook-url:';

/** base64url(HMAC-SHA256(secret, "slipway-webhook-url:" + slug)), cut to 32 characters (192 bits). */
export function deriveWebhookToken(secret: string | Buffer, slug: string): string {
  return createHmac('sha256', secret)
    .update(TOKEN_CONTEXT + slug)
    .digest('base64url')
    .slice(0, WEBHOOK_URL_TOKEN_LENGTH);
}

/** Whether `token` is the URL token of `slug` under `secret`, compared in constant time. */
export function isWebhookToken(token: string, secret: string | Buffer, slug: string): boolean {
  return constantTimeEqual(token, deriveWebhookToken(secret, slug));
}

/** The webhook URL shown to the user: `{baseUrl}/hooks/{slug}/{token}`. */
export function webhookUrl(baseUrl: string, slug: string, secret: string | Buffer): string {
  return `${trimSlash(baseUrl)}/hooks/${encodeURIComponent(slug)}/${deriveWebhookToken(secret, slug)}`;
}

/** The upload script's address (`{script_url}`): `{baseUrl}/upload.sh`. */
export function uploadScriptUrl(baseUrl: string): string {
  return `${trimSlash(baseUrl)}/upload.sh`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
