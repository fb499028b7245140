import {
  DEFAULT_COMPRESSION_RATIO_GRACE_BYTES,
  DEFAULT_MAX_ARCHIVE_BYTES,
  DEFAULT_MAX_ARCHIVE_ENTRIES,
  DEFAULT_MAX_COMPRESSION_RATIO,
  DEFAULT_MAX_UNCOMPRESSED_BYTES,
} from '../limits.ts';

export interface ArchiveLimits {
  /** Compressed bytes (what is uploaded and stored). Over it: 413. */
  maxArchiveBytes: number;
  /** Bytes after gunzip, tar headers included. */
  maxUncompressedBytes: number;
  /** Uncompressed / compressed, enforced once `compressionRatioGraceBytes` were unpacked. */
  maxCompressionRatio: number;
  compressionRatioGraceBytes: number;
  maxEntries: number;
}

export const defaultArchiveLimits: ArchiveLimits = {
  maxArchiveBytes: DEFAULT_MAX_ARCHIVE_BYTES,
  maxUncompressedBytes: DEFAULT_MAX_UNCOMPRESSED_BYTES,
  maxCompressionRatio: DEFAULT_MAX_COMPRESSION_RATIO,
  compressionRatioGraceBytes: DEFAULT_COMPRESSION_RATIO_GRACE_BYTES,
  maxEntries: DEFAULT_MAX_ARCHIVE_ENTRIES,
};

export function archiveLimits(overrides: Partial<ArchiveLimits> = {}): ArchiveLimits {
  const limits = { ...defaultArchiveLimits, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0)
      throw new RangeError(`archive limit ${name} must be a positive number`);
  }
  return limits;
}
