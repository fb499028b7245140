// Where an upload waits while it is validated, for every store: a temporary file in a local
// directory, the canonical re-write of the upload written chunk by chunk as canonicalizeArchive
// passes it on. Disk use is bounded by the
// archive limit, memory does not grow with the archive, and a refused or broken-off upload leaves
// no file. The filesystem store then renames the file into place; the S3 store PUTs it.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ArchiveLimits } from './archive-limits.ts';
import { canonicalizeArchive, type ArchiveDigest } from './canonical.ts';

const TEMP_PREFIX = '.incoming-';

export interface StagedArchive {
  /** The temporary file holding the validated archive. */
  path: string;
  digest: ArchiveDigest;
  /** Deletes the temporary file; harmless once it was renamed away. */
  discard(): Promise<void>;
}

/**
 * Validates `source` into a new temporary file in `dir`. Resolves once the archive passed every
 * check; rejects with ArchiveError, or the source's error, with the file already deleted.
 */
export async function stageArchive(
  source: Readable,
  dir: string,
  limits: ArchiveLimits,
  options: { sync?: boolean } = {},
): Promise<StagedArchive> {
  // The source may fail (a client gone) while the file is still being made, before any reader is
  // attached: the pipeline below reads that from `source.errored`, so the event itself is no crash.
  source.on('error', () => {});
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${TEMP_PREFIX}${randomUUID()}.tmp`);
  let handle: FileHandle | undefined = await open(path, 'wx', 0o600);
  try {
    const file = handle;
    const digest = await canonicalizeArchive(source, (chunk) => writeFully(file, chunk), limits);
    if (options.sync) await handle.sync();
    await handle.close();
    handle = undefined;
    return { path, digest, discard: () => rm(path, { force: true }) };
  } catch (error) {
    await handle?.close().catch(() => {});
    await rm(path, { force: true });
    throw error;
  }
}

/** Deletes temporary files older than `maxAgeMs`, left by a gateway that was killed mid-upload. */
export async function removeStaleTemporaryFiles(dir: string, now: Date, maxAgeMs: number): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  for (const name of names.filter((n) => n.startsWith(TEMP_PREFIX))) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && now.getTime() - info.mtimeMs > maxAgeMs) {
      await rm(path, { force: true });
      removed += 1;
    }
  }
  return removed;
}

async function writeFully(file: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await file.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}
