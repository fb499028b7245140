// Archives on a filesystem (a volume shared by the gateway replicas). An upload is written to a
// temporary file in the store directory while it is validated, fsynced, and renamed into place
// only when it passed every check; on any failure, including a client that breaks off, the
// temporary file is deleted. Keys are content addressed per project: `<namespace>/<project>/<sha256>.tar.gz`.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ArchiveLimits } from './archive-limits.ts';
import { validateArchive } from './validate.ts';

export interface StoredArchive {
  key: string;
  sha256: string;
  sizeBytes: number;
  entries: number;
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
}

const TEMP_PREFIX = '.incoming-';
const KEY_PATTERN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-f0-9]{64}\.tar\.gz$/;

export function archiveKey(namespace: string, project: string, sha256: string): string {
  const key = `${namespace}/${project}/${sha256}.tar.gz`;
  if (!isArchiveKey(key)) throw new Error(`not a valid archive key: ${key}`);
  return key;
}

export function isArchiveKey(key: string): boolean {
  return KEY_PATTERN.test(key);
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
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, `${TEMP_PREFIX}${randomUUID()}.tmp`);
    let handle: FileHandle | undefined = await open(temp, 'wx', 0o600);
    try {
      const file = handle;
      const digest = await validateArchive(source, (chunk) => writeFully(file, chunk), limits);
      await handle.sync();
      await handle.close();
      handle = undefined;

      const key = archiveKey(target.namespace, target.project, digest.sha256);
      const final = join(this.dir, key);
      await mkdir(dirname(final), { recursive: true });
      const alreadyStored = await exists(final);
      await rename(temp, final);
      await syncDirectory(dirname(final));
      return { key, ...digest, alreadyStored };
    } catch (error) {
      await handle?.close().catch(() => {});
      await rm(temp, { force: true });
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
  async removeStaleTemporaryFiles(now: Date, maxAgeMs: number): Promise<number> {
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    for (const name of names.filter((n) => n.startsWith(TEMP_PREFIX))) {
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now.getTime() - info.mtimeMs > maxAgeMs) {
        await rm(path, { force: true });
        removed += 1;
      }
    }
    return removed;
  }
}

async function writeFully(file: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await file.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
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
