// Where an uploaded archive is stored and downloaded: a contract between the gateway, which
// stores it under its key and serves `/archives/{key}`, and the operator, which signs that URL
// for each build Job. A Bundle's spec keeps the stable, unsigned URL; whoever launches the build
// Job signs it with a short expiry, so a URL seen in a Job or a log stops working soon after.
import { createHmac } from 'node:crypto';

const ARCHIVES_SEGMENT = '/archives/';
const KEY_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-f0-9]{64}\.tar\.gz$/;

/** Keys are content addressed per project: `<namespace>/<project>/<sha256>.tar.gz`. */
export function archiveKey(namespace: string, project: string, sha256: string): string {
  const key = `${namespace}/${project}/${sha256}.tar.gz`;
  if (!isArchiveKey(key)) throw new Error(`not a valid archive key: ${key}`);
  return key;
}

export function isArchiveKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The unsigned URL a Bundle records. */
export function archiveUrl(baseUrl: string, key: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${ARCHIVES_SEGMENT}${key}`;
}

/** The archive key inside an archive URL's path, or undefined. */
export function archiveKeyFromPath(pathname: string): string | undefined {
  const at = pathname.lastIndexOf(ARCHIVES_SEGMENT);
  if (at < 0) return undefined;
  const key = pathname.slice(at + ARCHIVES_SEGMENT.length);
  return isArchiveKey(key) ? key : undefined;
}

/**
 * Why an archive URL may not be signed for a bundle of `namespace/project`, or undefined when it
 * may: only an archive the gateway stored for that very project, at the gateway's own archive
 * address. Anything else would let a bundle obtain a download signature for an archive of
 * another project or namespace.
 */
export function foreignArchiveProblem(
  url: string,
  archiveBaseUrl: string,
  namespace: string,
  project: string,
): string | undefined {
  const base = new URL(`${archiveBaseUrl.replace(/\/+$/, '')}${ARCHIVES_SEGMENT}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `spec.source.archive.url ${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathname))
    return `spec.source.archive.url is not an archive of this cluster's gateway (${base.href}…): only archives uploaded for the project are downloaded`;
  const key = parsed.pathname.slice(base.pathname.length);
  if (!isArchiveKey(key)) return `spec.source.archive.url names no archive (${key || 'an empty key'})`;
  if (!key.startsWith(`${namespace}/${project}/`))
    return `spec.source.archive.url names an archive of project ${key.split('/').slice(0, 2).join('/')}, not of ${namespace}/${project}`;
  return undefined;
}

/** Adds `expires` (unix seconds) and `signature` to an archive URL. */
export function signArchiveUrl(url: string, signingKey: string | Buffer, expiresAt: Date): string {
  const signed = new URL(url);
  const key = archiveKeyFromPath(signed.pathname);
  if (key === undefined) throw new Error('not an archive URL');
  const expires = String(Math.floor(expiresAt.getTime() / 1000));
  signed.searchParams.set('expires', expires);
  signed.searchParams.set('signature', archiveSignature(signingKey, key, expires));
  return signed.toString();
}

/** The signature of a download of `key` valid until `expires` (unix seconds). */
export function archiveSignature(signingKey: string | Buffer, key: string, expires: string): string {
  return createHmac('sha256', signingKey).update(`slipway-archive:${key}\n${expires}`).digest('base64url');
}
