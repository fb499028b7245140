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
