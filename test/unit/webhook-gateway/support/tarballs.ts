// Builds .tar.gz archives in memory for tests, hostile ones included.
import { gzipSync } from 'node:zlib';
import tarStream from 'tar-stream';

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
