// Where CI (and a provider's delivery log) follows a bundle without cluster credentials: a
// read-only URL per bundle, served by the gateway from its cache. The token is an HMAC of the
// bundle's namespace and name with the gateway's signing key, so the URL cannot be guessed for
// another bundle; it shows no more than the bundle's status does.
import { createHmac } from 'node:crypto';

const SEGMENT = '/bundles/';

export function bundleStatusToken(signingKey: string | Buffer, namespace: string, name: string): string {
  return createHmac('sha256', signingKey)
    .update(`slipway-bundle-status:${namespace}/${name}`)
    .digest('base64url');
}

export function bundleStatusUrl(
  baseUrl: string,
  signingKey: string | Buffer,
  namespace: string,
  name: string,
): string {
  const token = bundleStatusToken(signingKey, namespace, name);
  return `${baseUrl.replace(/\/+$/, '')}${SEGMENT}${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${token}`;
}
