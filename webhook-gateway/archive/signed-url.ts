// Checking a signed archive download URL (signed as rules/archive-url.ts says), in constant time.
import { archiveSignature } from '../../rules/archive-url.ts';
import { constantTimeEqual } from '../../lib/constant-time.ts';

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
