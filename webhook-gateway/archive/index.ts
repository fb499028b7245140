export { archiveLimits, defaultArchiveLimits, type ArchiveLimits } from './archive-limits.ts';
export { ArchiveError, type ArchiveErrorCode } from './errors.ts';
export { canonicalizeArchive, type ArchiveDigest } from './canonical.ts';
export {
  FilesystemArchiveStore,
  archiveKey,
  isArchiveKey,
  type ArchiveStore,
  type StoredArchive,
} from './store.ts';
export { S3ArchiveStore, S3StoreError, type S3ArchiveStoreOptions } from './s3-store.ts';
export { createArchiveStore, loadArchiveStoreConfig, type ArchiveStoreConfig } from './store-config.ts';
export { archiveKeyFromPath, archiveUrl, signArchiveUrl, verifyArchiveSignature } from './signed-url.ts';
