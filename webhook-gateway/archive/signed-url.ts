// Download URLs for stored archives. A Bundle's spec keeps the stable, unsigned URL
// (`{archiveBaseUrl}/archives/{key}`); whoever launches the build Job signs it with a short expiry,
// so a URL seen in a Job or a log stops working soon after.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../constant-time.ts';
import { isArchiveKey } from './store.ts';

const ARCHIVES_SEGMENT = '/archives/';

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

/** Whether a download of `key` carries a valid signature that has not expired at `now`. */
export function verifyArchiveSignature(
  key: string,
  expires: string | null,
  signature: string | null,
  signingKey: string | Buffer,
  now: Date,
): boolean {
  if (expires === null || signature === null || !/^\d{1,12}$/.test(expires)) return false;
  if (Number(expires) * 1000 <= now.getTime()) return false;
  return constantTimeEqual(signature, archiveSignature(signingKey, key, expires));
}

function archiveSignature(signingKey: string | Buffer, key: string, expires: string): string {
  return createHmac('sha256', signingKey).update(`slipway-archive:${key}\n${expires}`).digest('base64url');
}
