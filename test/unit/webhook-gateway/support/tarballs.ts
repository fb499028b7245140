// Builds .tar.gz archives in memory for tests, hostile ones included.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';
import { archiveLimits, canonicalizeArchive } from '../../../../webhook-gateway/archive/index.ts';

export interface TestEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  content?: string | Buffer;
  linkname?: string;
}

export async function tarball(entries: TestEntry[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => {
    chunks.push(chunk as Buffer);
  });
  const done = new Promise<void>((resolve, reject) => {
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const header = {
      name: entry.name,
      type,
      linkname: entry.linkname,
      mode: type === 'directory' ? 0o755 : 0o644,
    };
    await new Promise<void>((resolve, reject) => {
      const callback = (error?: Error | null) => (error ? reject(error) : resolve());
      const content = type === 'file' ? (entry.content ?? `contents of ${entry.name}\n`) : Buffer.alloc(0);
      pack.entry(header, content, callback);
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

export async function tarGz(entries: TestEntry[]): Promise<Buffer> {
  return gzipSync(await tarball(entries));
}

/** A small, valid base directory. */
export function baseDirectory(): TestEntry[] {
  return [
    { name: './', type: 'directory' },
    { name: './config/', type: 'directory' },
    { name: './config/general.php', content: '<?php return [];\n' },
    { name: './web/', type: 'directory' },
    { name: './web/index.php', content: '<?php echo "hi";\n' },
    { name: './templates/index.twig', content: '{{ hello }}\n' },
  ];
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** An entry of a .tar.gz as read back: name, type, mode, owner, link target and content. */
export interface ReadEntry {
  name: string;
  type: string;
  mode: number;
  uid: number;
  linkname?: string;
  content?: string;
}

/** Reads a .tar.gz back, for tests that check what was stored. */
export async function readTarGz(archive: Buffer): Promise<ReadEntry[]> {
  const entries: ReadEntry[] = [];
  const extract = tarStream.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      entries.push({
        name: header.name,
        type: header.type ?? 'unknown',
        mode: header.mode ?? 0,
        uid: header.uid ?? 0,
        ...(header.linkname ? { linkname: header.linkname } : {}),
        ...(header.type === 'file' ? { content: Buffer.concat(chunks).toString() } : {}),
      });
      next();
    });
  });
  await pipeline(Readable.from([archive]), createGunzip(), extract);
  return entries;
}

/** The canonical archive of baseDirectory(): the root left out, directories with a slash. */
export const CANONICAL_BASE_NAMES = [
  'config/',
  'config/general.php',
  'web/',
  'web/index.php',
  'templates/index.twig',
];

/** The sha256 the gateway gives the canonical re-write of `archive` (its store key). */
export async function canonicalSha256(archive: Buffer): Promise<string> {
  return (await canonicalizeArchive(Readable.from([archive]), async () => {}, archiveLimits())).sha256;
}
