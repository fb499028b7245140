// The archive store interface and the filesystem store (a volume shared by the gateway
// replicas). Every store stages an upload in a temporary file while it is validated (staging.ts);
// this one fsyncs it and renames it into place only when it passed every check, so on any failure,
// including a client that breaks off, nothing is left. The S3 store is in s3-store.ts. Keys are
// content addressed per project: `<namespace>/<project>/<sha256>.tar.gz`.
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { ArchiveLimits } from './archive-limits.ts';
import { archiveKey, isArchiveKey } from '../../rules/archive-url.ts';
import type { ArchiveDigest } from './canonical.ts';
import { removeStaleTemporaryFiles, stageArchive } from './staging.ts';

/** Where an upload's canonical archive was stored, and its digest. */
export interface StoredArchive extends ArchiveDigest {
  key: string;
  /** The same content was already stored for this project (an earlier upload owns the file). */
  alreadyStored: boolean;
}

export interface ArchiveStore {
  /** Validates and stores an upload; rejects with ArchiveError, or the source's error, leaving nothing behind. */
  receive(
    source: Readable,
    target: { namespace: string; project: string },
    limits: ArchiveLimits,
  ): Promise<StoredArchive>;
  /** A stored archive for download, or undefined when there is none under `key`. */
  open(key: string): Promise<{ stream: Readable; sizeBytes: number } | undefined>;
  remove(key: string): Promise<void>;
  /** Every stored archive (keys under `namespace/` only, when given), with when it was stored. */
  list(namespace?: string): AsyncIterable<StoredKey>;
}

export interface StoredKey {
  key: string;
  modifiedAt: Date;
}

export class FilesystemArchiveStore implements ArchiveStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  async receive(
    source: Readable,
    target: { namespace: string; project: string },
    limits: ArchiveLimits,
  ): Promise<StoredArchive> {
    const staged = await stageArchive(source, this.dir, limits, { sync: true });
    try {
      const key = archiveKey(target.namespace, target.project, staged.digest.sha256);
      const final = join(this.dir, key);
      await mkdir(dirname(final), { recursive: true });
      const alreadyStored = await exists(final);
      await rename(staged.path, final);
      await syncDirectory(dirname(final));
      return { key, ...staged.digest, alreadyStored };
    } catch (error) {
      await staged.discard();
      throw error;
    }
  }

  async open(key: string): Promise<{ stream: Readable; sizeBytes: number } | undefined> {
    if (!isArchiveKey(key)) return undefined;
    const path = join(this.dir, key);
    try {
      const info = await stat(path);
      if (!info.isFile()) return undefined;
      return { stream: createReadStream(path), sizeBytes: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    if (!isArchiveKey(key)) throw new Error(`not a valid archive key: ${key}`);
    await rm(join(this.dir, key), { force: true });
  }

  /** Deletes temporary files older than `maxAgeMs`, left by a gateway that was killed mid-upload. */
  removeStaleTemporaryFiles(now: Date, maxAgeMs: number): Promise<number> {
    return removeStaleTemporaryFiles(this.dir, now, maxAgeMs);
  }

  async *list(namespace?: string): AsyncIterable<StoredKey> {
    const root = namespace ? join(this.dir, namespace) : this.dir;
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [];
        throw error;
      },
    );
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const key = relative(this.dir, path).split(sep).join('/');
      if (!isArchiveKey(key)) continue;
      const info = await stat(path).catch(() => undefined);
      if (info) yield { key, modifiedAt: info.mtime };
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Makes the rename durable. */
async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
