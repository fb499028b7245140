// The webhook URL of a project, `/hooks/{slug}/{token}`: a contract between the operator, which
// publishes it in the Project's status, and the gateway, which recomputes the token on every
// delivery — so neither stores it, and it changes when the secret rotates. The URL is a
// credential: never log it or use it as a label.
import { createHmac } from 'node:crypto';

/** Characters of the URL token (base64url, 6 bits each: 192 bits). */
export const WEBHOOK_URL_TOKEN_LENGTH = 32;
const TOKEN_CONTEXT = 'slipway-webhook-url:';

/** base64url(HMAC-SHA256(secret, "slipway-webhook-url:" + slug)), cut to 32 characters (192 bits). */
export function deriveWebhookToken(secret: string | Buffer, slug: string): string {
  return createHmac('sha256', secret)
    .update(TOKEN_CONTEXT + slug)
    .digest('base64url')
    .slice(0, WEBHOOK_URL_TOKEN_LENGTH);
}

/** A project's slug (the URL's `{slug}`): spec.slug, defaulting to the object's name. */
export function effectiveSlug(project: {
  metadata: { name: string };
  spec?: { slug?: string | undefined };
}): string {
  return project.spec?.slug ?? project.metadata.name;
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
