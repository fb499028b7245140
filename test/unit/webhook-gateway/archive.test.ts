import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  ArchiveError,
  FilesystemArchiveStore,
  archiveLimits,
  canonicalizeArchive,
  verifyArchiveSignature,
  type ArchiveLimits,
} from '../../../webhook-gateway/archive/index.ts';
import { archiveKeyFromPath, archiveUrl, signArchiveUrl } from '../../../rules/archive-url.ts';
import {
  CANONICAL_BASE_NAMES,
  baseDirectory,
  readTarGz,
  sha256,
  tarGz,
  tarball,
  type TestEntry,
} from './support/tarballs.ts';

const MiB = 1024 * 1024;
const ARCHIVE_MODULE = new URL('../../../webhook-gateway/archive/index.ts', import.meta.url).href;
const target = { namespace: 'team-web', project: 'shop' };
let dir: string;
let store: FilesystemArchiveStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'slipway-archives-'));
  store = new FilesystemArchiveStore(dir);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file under the store directory, relative paths. */
async function storedFiles(): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

function chunked(buffer: Buffer, size = 16 * 1024): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (offset >= buffer.length) this.push(null);
      else {
        this.push(buffer.subarray(offset, offset + size));
        offset += size;
      }
    },
  });
}

async function refused(archive: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<ArchiveError> {
  const error = await store.receive(chunked(archive), target, archiveLimits(limits)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ArchiveError);
  expect(await storedFiles()).toEqual([]);
  return error as ArchiveError;
}

describe('archive store', () => {
  it('stores the canonical re-write of a valid archive under its content address', async () => {
    const archive = await tarGz(baseDirectory());
    const stored = await store.receive(chunked(archive, 7), target, archiveLimits());
    expect(await storedFiles()).toEqual([stored.key]);
    const canonical = await readFile(join(dir, stored.key));
    expect(stored).toEqual({
      key: `team-web/shop/${sha256(canonical)}.tar.gz`,
      sha256: sha256(canonical),
      sizeBytes: canonical.length,
      uploadedBytes: archive.length,
      entries: 5,
      alreadyStored: false,
    });
    const entries = await readTarGz(canonical);
    expect(entries.map((e) => e.name)).toEqual(CANONICAL_BASE_NAMES);
    expect(entries.find((e) => e.name === 'web/index.php')).toMatchObject({
      type: 'file',
      mode: 0o644,
      uid: 0,
      content: '<?php echo "hi";\n',
    });

    const again = await store.receive(chunked(archive), target, archiveLimits());
    expect(again.alreadyStored).toBe(true);
    expect(again.sha256).toBe(stored.sha256);
    expect(await storedFiles()).toEqual([stored.key]);

    const download = await store.open(stored.key);
    expect(download?.sizeBytes).toBe(canonical.length);
    download?.stream.destroy();
    await store.remove(stored.key);
    expect(await storedFiles()).toEqual([]);
    expect(await store.open(stored.key)).toBeUndefined();
    expect(await store.open('../etc/passwd')).toBeUndefined();
  });

  it('re-writes modes and owners: no setuid, setgid or sticky bits; executables stay executable', async () => {
    const raw = await tarball([
      { name: 'web/index.php' },
      { name: 'bin/run' },
      { name: 'tmp/', type: 'directory' },
    ]);
    // Headers at 0, 1024 and 2048 (each file is one header and one data block): set the modes.
    const setMode = (offset: number, mode: number) => {
      raw.write(`${mode.toString(8).padStart(7, '0')}\0`, offset + 100, 'ascii');
      raw.fill(' ', offset + 148, offset + 156);
      let sum = 0;
      for (let i = offset; i < offset + 512; i += 1) sum += raw[i]!;
      raw.write(`${sum.toString(8).padStart(6, '0')}\0 `, offset + 148, 'ascii');
    };
    setMode(0, 0o6755);
    setMode(1024, 0o4711);
    setMode(2048, 0o1777);
    const stored = await store.receive(chunked(gzipSync(raw)), target, archiveLimits());
    const entries = await readTarGz(await readFile(join(dir, stored.key)));
    expect(entries.map((e) => [e.name, e.mode])).toEqual([
      ['web/index.php', 0o755],
      ['bin/run', 0o755],
      ['tmp/', 0o755],
    ]);
  });

  it('keeps symlinks that stay inside the tree and turns hard links into relative symlinks', async () => {
    const stored = await store.receive(
      chunked(
        await tarGz([
          ...baseDirectory(),
          { name: 'web/assets', type: 'symlink', linkname: '../config' },
          { name: 'web/favicon.ico', type: 'symlink', linkname: 'index.php' },
          { name: 'web/copy.php', type: 'link', linkname: 'web/index.php' },
          { name: 'templates/copy.php', type: 'link', linkname: './web/index.php' },
        ]),
      ),
      target,
      archiveLimits(),
    );
    const links = (await readTarGz(await readFile(join(dir, stored.key)))).filter((e) => e.linkname);
    expect(links.map((e) => [e.name, e.type, e.linkname])).toEqual([
      ['web/assets', 'symlink', '../config'],
      ['web/favicon.ico', 'symlink', 'index.php'],
      ['web/copy.php', 'symlink', 'index.php'],
      ['templates/copy.php', 'symlink', '../web/index.php'],
    ]);
  });

  it('leaves nothing behind when the upload breaks off mid-stream', async () => {
    const archive = await tarGz(baseDirectory());
    let sent = false;
    const source = new Readable({
      read() {
        if (sent) {
          this.destroy(new Error('client went away'));
          return;
        }
        sent = true;
        this.push(archive.subarray(0, 40));
      },
    });
    await expect(store.receive(source, target, archiveLimits())).rejects.toThrow('client went away');
    expect(await storedFiles()).toEqual([]);
  });

  it('reports an upload that broke off before the store began reading, and keeps running', async () => {
    // The client can go while the store still makes its temporary file: the upload's stream then
    // errors with no reader attached yet. That is the upload's failure; an unhandled 'error' event
    // would end the gateway (the test runner swallows those, so this runs in its own process).
    const script = `
      import { Readable } from 'node:stream';
      import { FilesystemArchiveStore, archiveLimits } from ${JSON.stringify(ARCHIVE_MODULE)};
      const source = new Readable({ read() {} });
      const receiving = new FilesystemArchiveStore(process.argv[1]).receive(
        source, { namespace: 'team-web', project: 'shop' }, archiveLimits());
      source.destroy(new Error('client went away'));
      receiving.then(() => console.log('stored'), (error) => console.log('refused:', error.message));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, dir], { encoding: 'utf8' });
    expect({ status: run.status, stdout: run.stdout.trim() }).toEqual({
      status: 0,
      stdout: 'refused: client went away',
    });
    expect(await storedFiles()).toEqual([]);
  });

  it('removes temporary files a killed gateway left behind, once they are old', async () => {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, '.incoming-stale.tmp'), 'partial');
    expect(await store.removeStaleTemporaryFiles(new Date(), 60_000)).toBe(0);
    expect(await store.removeStaleTemporaryFiles(new Date(Date.now() + 120_000), 60_000)).toBe(1);
    expect(await storedFiles()).toEqual([]);
  });
});

describe('hostile and broken archives are refused with nothing left in the store', () => {
  const cases: Array<[string, TestEntry[], ArchiveError['code'], RegExp]> = [
    ['an absolute path', [{ name: '/etc/cron.d/evil' }], 'unsafe_path', /absolute path/],
    ['a .. entry', [{ name: 'web/../../evil.php' }], 'unsafe_path', /contains '\.\.'/],
    ['a leading .. entry', [{ name: '../evil.php' }], 'unsafe_path', /'\.\.'/],
    [
      'a symlink escaping the tree',
      [{ name: 'web/escape', type: 'symlink', linkname: '../../etc' }],
      'unsafe_link',
      /outside/,
    ],
    [
      'a symlink to an absolute path',
      [{ name: 'web/passwd', type: 'symlink', linkname: '/etc/passwd' }],
      'unsafe_link',
      /absolute/,
    ],
    [
      'a symlink escaping through another symlink',
      [
        { name: 'here', type: 'symlink', linkname: '.' },
        { name: 'web/a', type: 'symlink', linkname: '../here/../here/..' },
      ],
      'unsafe_link',
      /symlink 'web\/a' points outside/,
    ],
    [
      'a symlink escaping through a symlink that comes later',
      [
        { name: 'dir/link', type: 'symlink', linkname: '../dot/..' },
        { name: 'dot', type: 'symlink', linkname: '.' },
        { name: 'file' },
      ],
      'unsafe_link',
      /symlink 'dir\/link' points outside/,
    ],
    [
      'a file written through a symlink',
      [{ name: 'web', type: 'symlink', linkname: 'config' }, { name: 'web/index.php' }],
      'unsafe_link',
      /through the symlink/,
    ],
    [
      'a hard link escaping the tree',
      [{ name: 'file' }, { name: 'web/pw', type: 'link', linkname: '../../etc/passwd' }],
      'unsafe_path',
      /contains '\.\.'/,
    ],
    [
      'a hard link to an absolute path',
      [{ name: 'file' }, { name: 'pw', type: 'link', linkname: '/etc/shadow' }],
      'unsafe_link',
      /absolute/,
    ],
    [
      'a character device',
      [{ name: 'file' }, { name: 'dev/null', type: 'character-device' }],
      'unsupported_entry',
      /character device/,
    ],
    [
      'a block device',
      [{ name: 'file' }, { name: 'dev/sda', type: 'block-device' }],
      'unsupported_entry',
      /block device/,
    ],
    ['a fifo', [{ name: 'file' }, { name: 'pipe', type: 'fifo' }], 'unsupported_entry', /fifo/],
    ['an archive with no files', [{ name: 'web/', type: 'directory' }], 'empty_archive', /no files/],
    [
      'a symlink replaced by a directory, so that a second symlink through it escapes',
      [
        { name: 't', type: 'symlink', linkname: 'x/y/z' },
        { name: 'l', type: 'symlink', linkname: 't/../../..' },
        { name: 't/', type: 'directory' },
        { name: 'f' },
      ],
      'unsafe_link',
      /replaces a link/,
    ],
    [
      'a symlink loop',
      [
        { name: 'a', type: 'symlink', linkname: 'b' },
        { name: 'b', type: 'symlink', linkname: 'a' },
        { name: 'f' },
      ],
      'unsafe_link',
      /loop/,
    ],
  ];

  it.each(cases)('%s', async (_name, entries, code, message) => {
    const error = await refused(await tarGz(entries));
    expect(error.code).toBe(code);
    expect(error.status).toBe(422);
    expect(error.message).toMatch(message);
  });

  it('a pax global header (tar and the checks would read different names)', async () => {
    // Built as a plain file entry whose header is then turned into a global pax header ('g').
    // "16 path=../evil\n": a pax record names its own length.
    const tar = await tarball([{ name: 'pax_global_header', content: '16 path=../evil\n' }, { name: 'ok' }]);
    tar[156] = 'g'.charCodeAt(0);
    tar.fill(' ', 148, 156);
    let sum = 0;
    for (let i = 0; i < 512; i += 1) sum += tar[i]!;
    tar.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    const error = await refused(gzipSync(tar));
    expect(error.code).toBe('unsupported_entry');
    expect(error.message).toMatch(/pax global/);
  });

  it('a truncated gzip stream', async () => {
    const archive = await tarGz(baseDirectory());
    const error = await refused(archive.subarray(0, archive.length - 30));
    expect(error).toMatchObject({ code: 'invalid_gzip', status: 422 });
  });

  it('bytes that are not gzip', async () => {
    expect(await refused(Buffer.from('PK\u0003\u0004 this is a zip file'))).toMatchObject({
      code: 'invalid_gzip',
    });
  });

  it('a gzip stream that is not a tar', async () => {
    expect(await refused(gzipSync(Buffer.from('hello world\n'.repeat(100))))).toMatchObject({
      code: 'invalid_tar',
    });
  });

  it('a tar cut off in the middle of an entry', async () => {
    const tar = await tarball([{ name: 'big', content: randomBytes(4096) }]);
    expect(await refused(gzipSync(tar.subarray(0, 1536)))).toMatchObject({ code: 'invalid_tar' });
  });

  it('an archive over the size limit: 413', async () => {
    const archive = await tarGz([{ name: 'noise', content: randomBytes(256 * 1024) }]);
    const error = await refused(archive, { maxArchiveBytes: 64 * 1024 });
    expect(error).toMatchObject({ code: 'archive_too_large', status: 413 });
  });

  it('a decompression bomb over the unpacked size limit', async () => {
    const archive = await tarGz([{ name: 'zeros', content: Buffer.alloc(8 * MiB) }]);
    expect(archive.length).toBeLessThan(64 * 1024);
    const error = await refused(archive, {
      maxUncompressedBytes: 4 * MiB,
      compressionRatioGraceBytes: 1 * MiB * 1024,
    });
    expect(error.code).toBe('uncompressed_too_large');
  });

  it('a decompression bomb over the compression ratio', async () => {
    const archive = await tarGz([{ name: 'zeros', content: Buffer.alloc(8 * MiB) }]);
    const error = await refused(archive, { compressionRatioGraceBytes: 1 * MiB, maxCompressionRatio: 50 });
    expect(error.code).toBe('compression_ratio');
  });

  it('too many entries', async () => {
    const entries = Array.from({ length: 30 }, (_, i) => ({ name: `f${i}` }));
    const error = await refused(await tarGz(entries), { maxEntries: 20 });
    expect(error).toMatchObject({
      code: 'too_many_entries',
      message: 'the archive has more than 20 entries',
    });
  });
});

describe('costs an attacker cannot inflate', () => {
  it('refuses symlinks whose resolution would take millions of steps', async () => {
    const deep = Array.from({ length: 2000 }, () => 'a').join('/');
    const entries: TestEntry[] = [{ name: 'web/index.html' }];
    for (let i = 0; i < 1000; i += 1) entries.push({ name: `l${i}`, type: 'symlink', linkname: deep });
    const error = await refused(await tarGz(entries));
    expect(error).toMatchObject({ code: 'unsafe_link', message: expect.stringMatching(/too many steps/) });
  }, 30_000);

  it('counts the directories that deep paths imply against the entry limit', async () => {
    const entries = Array.from({ length: 20 }, (_, i) => ({ name: `${i}/${'d/'.repeat(100)}f` }));
    const error = await refused(await tarGz(entries), { maxEntries: 1000 });
    expect(error).toMatchObject({
      code: 'too_many_entries',
      message: expect.stringMatching(/name more than 2000/),
    });
  });

  it('re-writes the same upload to the same bytes, links included (one stored copy)', async () => {
    const archive = await tarGz([
      ...baseDirectory(),
      { name: 'web/link', type: 'symlink', linkname: 'index.php' },
    ]);
    const first = await store.receive(chunked(archive), target, archiveLimits());
    const second = await store.receive(chunked(archive), target, archiveLimits());
    expect(second.sha256).toBe(first.sha256);
    expect(second.alreadyStored).toBe(true);
  });

  it('reports a failing write as that failure, not as a bad archive, and stops reading', async () => {
    const archive = await tarGz(
      Array.from({ length: 200 }, (_, i) => ({ name: `f${i}`, content: randomBytes(4096) })),
    );
    let writes = 0;
    const failure = new Error('ENOSPC: no space left on device');
    const error = await canonicalizeArchive(
      chunked(archive, 1024),
      async () => {
        writes += 1;
        if (writes > 2) throw failure;
      },
      archiveLimits(),
    ).catch((e: unknown) => e);
    expect(error).toBe(failure);
  });
});

describe('streaming', () => {
  it('holds a bounded number of bytes in flight however large the archive', async () => {
    // 24 MiB of incompressible data: the source is only read as fast as the (slow) disk writes,
    // so what is in flight (the stages' buffers, 256 KiB each) stays a small part of it.
    const archive = await tarGz([{ name: 'noise.bin', content: randomBytes(24 * MiB) }]);
    let pulled = 0;
    let written = 0;
    let maxInFlight = 0;
    let offset = 0;
    const source = new Readable({
      highWaterMark: 64 * 1024,
      read() {
        if (offset >= archive.length) {
          this.push(null);
          return;
        }
        const chunk = archive.subarray(offset, offset + 64 * 1024);
        offset += chunk.length;
        pulled += chunk.length;
        maxInFlight = Math.max(maxInFlight, pulled - written);
        this.push(chunk);
      },
    });
    // A slow disk: each write takes a timer tick, and writes must never overlap.
    let writing = 0;
    let maxConcurrentWrites = 0;
    const digest = await canonicalizeArchive(
      source,
      async (chunk: Buffer) => {
        writing += 1;
        maxConcurrentWrites = Math.max(maxConcurrentWrites, writing);
        await new Promise((resolve) => setTimeout(resolve, 0));
        written += chunk.length;
        writing -= 1;
      },
      archiveLimits(),
    );
    expect(digest.uploadedBytes).toBe(archive.length);
    expect(written).toBe(digest.sizeBytes);
    expect(maxConcurrentWrites).toBe(1);
    expect(maxInFlight).toBeLessThan(4 * MiB);
  }, 30_000);
});

describe('signed archive URLs', () => {
  const key = `team-web/shop/${'a'.repeat(64)}.tar.gz`;
  const now = new Date('2026-03-01T10:00:00Z');
  const url = archiveUrl('https://hooks.example.com/', key);

  it('verify until they expire, for that archive and key only', () => {
    const signed = new URL(signArchiveUrl(url, 'signing-key', new Date(now.getTime() + 60_000)));
    expect(signed.pathname).toBe(`/archives/${key}`);
    const expires = signed.searchParams.get('expires');
    const signature = signed.searchParams.get('signature');
    expect(verifyArchiveSignature(key, expires, signature, 'signing-key', now)).toBe(true);
    expect(
      verifyArchiveSignature(key, expires, signature, 'signing-key', new Date(now.getTime() + 61_000)),
    ).toBe(false);
    expect(verifyArchiveSignature(key, expires, signature, 'other-key', now)).toBe(false);
    expect(verifyArchiveSignature(key.replace('a', 'b'), expires, signature, 'signing-key', now)).toBe(false);
    expect(verifyArchiveSignature(key, String(Number(expires) + 3600), signature, 'signing-key', now)).toBe(
      false,
    );
    expect(verifyArchiveSignature(key, expires, null, 'signing-key', now)).toBe(false);
    expect(verifyArchiveSignature(key, null, signature, 'signing-key', now)).toBe(false);
  });

  it('find the archive key in a URL path, and only a valid one', () => {
    expect(archiveKeyFromPath(`/gateway/archives/${key}`)).toBe(key);
    expect(archiveKeyFromPath('/archives/../../etc/passwd')).toBeUndefined();
    expect(() => signArchiveUrl('https://hooks.example.com/other', 'k', now)).toThrow();
  });
});
