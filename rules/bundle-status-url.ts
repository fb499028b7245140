// Where CI (and a provider's delivery log) follows a bundle without cluster credentials: a
// read-only URL per bundle, served by the gateway from its cache. The token is an HMAC of the
// bundle's namespace, name and uid with the gateway's signing key, so the URL cannot be guessed
// for another bundle, nor opens to a bundle made later under the same name (a namespace deleted
// and made again by someone else); it shows no more than the bundle's status does, without the
// output of a failed step (rules/container-output.ts).
//
// Its build's logs have a URL of their own (`…/logs/<token>`, another HMAC purpose), given only
// in the bundle's status.logsUrl: whoever may get the bundle reads its build's logs, which run
// in the build namespace where tenants have no rights (docs/adr/0004).
import { createHmac } from 'node:crypto';

const SEGMENT = '/bundles/';

/** A bundle as its URLs name it. */
export interface BundleIdentity {
  namespace: string;
  name: string;
  uid: string;
}

export function bundleStatusToken(signingKey: string | Buffer, bundle: BundleIdentity): string {
  return sign('slipway-bundle-status', signingKey, bundle.namespace, `${bundle.name}/${bundle.uid}`);
}

/** The logs token: another purpose, the same identity. */
export function bundleLogsToken(signingKey: string | Buffer, bundle: BundleIdentity): string {
  return sign('slipway-bundle-logs', signingKey, bundle.namespace, `${bundle.name}/${bundle.uid}`);
}

function sign(purpose: string, signingKey: string | Buffer, namespace: string, name: string): string {
  return createHmac('sha256', signingKey).update(`${purpose}:${namespace}/${name}`).digest('base64url');
}

const bundlePath = (baseUrl: string, namespace: string, name: string) =>
  `${baseUrl.replace(/\/+$/, '')}${SEGMENT}${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;

export function bundleLogsUrl(baseUrl: string, signingKey: string | Buffer, bundle: BundleIdentity): string {
  return `${bundlePath(baseUrl, bundle.namespace, bundle.name)}/logs/${bundleLogsToken(signingKey, bundle)}`;
}

export function bundleStatusUrl(
  baseUrl: string,
  signingKey: string | Buffer,
  bundle: BundleIdentity,
): string {
  return `${bundlePath(baseUrl, bundle.namespace, bundle.name)}/${bundleStatusToken(signingKey, bundle)}`;
}
