export { archiveLimits, defaultArchiveLimits, type ArchiveLimits } from './archive-limits.ts';
export { ArchiveError, type ArchiveErrorCode } from './errors.ts';
export { canonicalizeArchive, type ArchiveDigest } from './canonical.ts';
export { FilesystemArchiveStore, type ArchiveStore, type StoredArchive } from './store.ts';
export { S3ArchiveStore, S3StoreError, type S3ArchiveStoreOptions } from './s3-store.ts';
export { createArchiveStore, loadArchiveStoreConfig, type ArchiveStoreConfig } from './store-config.ts';
export { verifyArchiveSignature } from './signed-url.ts';
