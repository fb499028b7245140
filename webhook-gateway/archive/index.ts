export { archiveLimits, defaultArchiveLimits, type ArchiveLimits } from './archive-limits.ts';
export { ArchiveError, type ArchiveErrorCode } from './errors.ts';
export { validateArchive, type ArchiveDigest } from './validate.ts';
export {
  FilesystemArchiveStore,
  archiveKey,
  isArchiveKey,
  type ArchiveStore,
  type StoredArchive,
} from './store.ts';
export { archiveKeyFromPath, archiveUrl, signArchiveUrl, verifyArchiveSignature } from './signed-url.ts';
