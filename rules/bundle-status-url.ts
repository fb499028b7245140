// Where CI (and a provider's delivery log) follows a bundle without cluster credentials: a
// read-only URL per bundle, served by the gateway from its cache. The token is an HMAC of the
// bundle's namespace and name with the gateway's signing key, so the URL cannot be guessed for
// another bundle; it shows no more than the bundle's status does.
//
// Its build's logs have a URL of their own (`…/logs/<token>`, another HMAC purpose), given only
// in the bundle's status.logsUrl: whoever may get the bundle reads its build's logs, which run
// in the build namespace where tenants have no rights (docs/adr/0004).
import { createHmac } from 'node:crypto';

const SEGMENT = '/bundles/';

export function bundleStatusToken(signingKey: string | Buffer, namespace: string, name: string): string {
  return sign('slipway-bundle-status', signingKey, namespace, name);
}

/**
 * The logs token covers the bundle's uid too: a namespace deleted and made again by someone else,
 * with a bundle of the same name, never opens to an old URL.
 */
export function bundleLogsToken(
  signingKey: string | Buffer,
  namespace: string,
  name: string,
  uid: string,
): string {
  return sign('slipway-bundle-logs', signingKey, namespace, `${name}/${uid}`);
}

function sign(purpose: string, signingKey: string | Buffer, namespace: string, name: string): string {
  return createHmac('sha256', signingKey).update(`${purpose}:${namespace}/${name}`).digest('base64url');
}

const bundlePath = (baseUrl: string, namespace: string, name: string) =>
  `${baseUrl.replace(/\/+$/, '')}${SEGMENT}${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;

export function bundleLogsUrl(
  baseUrl: string,
  signingKey: string | Buffer,
  bundle: { namespace: string; name: string; uid: string },
): string {
  const { namespace, name, uid } = bundle;
  return `${bundlePath(baseUrl, namespace, name)}/logs/${bundleLogsToken(signingKey, namespace, name, uid)}`;
}

export function bundleStatusUrl(
  baseUrl: string,
  signingKey: string | Buffer,
  namespace: string,
  name: string,
): string {
  return `${bundlePath(baseUrl, namespace, name)}/${bundleStatusToken(signingKey, namespace, name)}`;
}
