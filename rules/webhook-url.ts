// The webhook URL of a project, `/hooks/{slug}/{token}`: a contract between the gateway, which
// recomputes the token from the project's secret on every delivery, and whoever may read that
// secret (`kubectl slipway hook`), who derives it the same way — so nobody stores it, and it
// changes when the secret rotates. The operator publishes the URL without its token
// (`status.webhook.url`, read by everyone who may read the Project): for a Bitbucket project the
// URL alone authenticates a push. The URL is a credential: never log it or use it as a label.
import { createHmac } from 'node:crypto';
import { boundedName } from '../crds/labels.ts';

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

/** What the Project's status shows: `{baseUrl}/hooks/{slug}`, the webhook URL without its token. */
export function webhookAddress(baseUrl: string, slug: string): string {
  return `${trimSlash(baseUrl)}/hooks/${encodeURIComponent(slug)}`;
}

/**
 * The webhook URL to paste into the provider: `{address}/{token}` (`address` as status shows it;
 * one an older operator published with a token has it replaced).
 */
export function withToken(address: string, slug: string, secret: string | Buffer): string {
  const hooks = `/hooks/${encodeURIComponent(slug)}`;
  const bare = trimSlash(address);
  const at = bare.lastIndexOf(hooks);
  const base = at >= 0 ? bare.slice(0, at + hooks.length) : bare;
  return `${base}/${deriveWebhookToken(secret, slug)}`;
}

/** The whole webhook URL: `{baseUrl}/hooks/{slug}/{token}`. */
export function webhookUrl(baseUrl: string, slug: string, secret: string | Buffer): string {
  return withToken(webhookAddress(baseUrl, slug), slug, secret);
}

/** The key of the Secret the operator generates for a Project that names none. */
export const WEBHOOK_SECRET_KEY = 'secret';
/** The name of that Secret. */
export const webhookSecretName = (project: string) => boundedName(project, 'webhook', 253);

/** Where a project's webhook secret is: spec.webhookSecretRef, or the Secret the operator generates. */
export function webhookSecretRef(project: {
  metadata: { name: string };
  spec?: { webhookSecretRef?: { name: string; key: string } | undefined };
}): { name: string; key: string } {
  return (
    project.spec?.webhookSecretRef ?? {
      name: webhookSecretName(project.metadata.name),
      key: WEBHOOK_SECRET_KEY,
    }
  );
}

/** The upload script's address (`{script_url}`): `{baseUrl}/upload.sh`. */
export function uploadScriptUrl(baseUrl: string): string {
  return `${trimSlash(baseUrl)}/upload.sh`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
