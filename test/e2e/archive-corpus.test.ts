// A hostile corpus against the gateway's archive intake: every archive is either refused (with
// the rule it broke, nothing stored) or stored as a canonical re-write — and every stored
// archive is then unpacked by GNU tar and by BusyBox tar (the fetch images' two tars) as root,
// which must both produce exactly the tree the gateway accepted, with nothing outside the
// extraction root and no setuid, setgid or sticky bit. Runs in the e2e tier: it needs root (GNU
// tar keeps modes and owners as root) and the node's packages (busybox-static).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  ArchiveError,
  FilesystemArchiveStore,
  archiveLimits,
  type ArchiveLimits,
} from '../../webhook-gateway/archive/index.ts';
import { readTarGz } from '../unit/webhook-gateway/support/tarballs.ts';
import { dir, entry, file, gnuLong, hardlink, header, pax, symlink, tar, tarGz } from '../support/raw-tar.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const outside = `/tmp/slipway-corpus-${randomBytes(4).toString('hex')}`;
let work: string;
let store: FilesystemArchiveStore;

interface Case {
  name: string;
  archive: Buffer;
  /** The rule it breaks, or the tree it must unpack to (directories end in '/', links 'a -> b'). */
  expect: { refused: ArchiveError['code'] } | { tree: string[] };
  limits?: Partial<ArchiveLimits>;
}

const ok = file('web/index.html', '<h1>ok</h1>\n');
const OK_TREE = ['web/', 'web/index.html'];
const refused = (code: ArchiveError['code']) => ({ refused: code });
const tree = (...paths: string[]) => ({ tree: paths });

/** Traversal payloads, each put into every header form below. */
const TRAVERSALS: Array<[string, string]> = [
  ['../evil', 'unsafe_path'],
  ['../../../../tmp/evil', 'unsafe_path'],
  ['web/../../evil', 'unsafe_path'],
  [`${outside}/abs`, 'unsafe_path'],
];

const traversalCases: Case[] = TRAVERSALS.flatMap(([path, code]) => [
  {
    name: `ustar name ${path}`,
    archive: tarGz(ok, file(path)),
    expect: refused(code as ArchiveError['code']),
  },
  {
    name: `ustar prefix ${path}`,
    archive: tarGz(ok, file('evil.txt', 'x', { prefix: path })),
    expect: refused(code as ArchiveError['code']),
  },
  {
    name: `GNU long name ${path}`,
    archive: tarGz(ok, gnuLong('L', path), file('short')),
    expect: refused(code as ArchiveError['code']),
  },
  {
    name: `pax path ${path}`,
    archive: tarGz(ok, pax({ path }), file('short')),
    expect: refused(code as ArchiveError['code']),
  },
  {
    name: `symlink to ${path}`,
    archive: tarGz(ok, symlink('link', path)),
    expect: refused('unsafe_link'),
  },
  {
    name: `pax linkpath ${path}`,
    archive: tarGz(ok, pax({ linkpath: path }), symlink('link', 'web/index.html')),
    expect: refused('unsafe_link'),
  },
  {
    name: `GNU long link ${path}`,
    archive: tarGz(ok, gnuLong('K', path), symlink('link', 'web/index.html')),
    expect: refused('unsafe_link'),
  },
  {
    name: `hard link to ${path}`,
    archive: tarGz(ok, hardlink('web/link', path)),
    expect: refused(path.startsWith('/') ? 'unsafe_link' : 'unsafe_path'),
  },
]);

const cases: Case[] = [
  ...traversalCases,
  // The hostile-input run's findings.
  {
    name: 'pax linkpath ../../.. followed by NUL',
    archive: tarGz(
      ok,
      pax({ linkpath: Buffer.from('../../..\0web', 'binary') }),
      symlink('web/up', 'index.html'),
    ),
    expect: refused('unsafe_link'),
  },
  {
    name: 'pax path with a NUL inside',
    archive: tarGz(ok, pax({ path: Buffer.from('web/a\0b.php', 'binary') }), file('x')),
    expect: refused('unsafe_path'),
  },
  {
    name: 'GNU magic with a prefix of ../../../tmp (BusyBox would apply it): neutralised',
    archive: tarGz(file('web/gnu.txt', 'gnu\n', { magic: 'gnu', prefix: '../../../tmp' })),
    expect: tree('web/', 'web/gnu.txt'),
  },
  {
    name: 'setuid, setgid and sticky bits: neutralised',
    archive: tarGz(
      file('bin/suid', '#!/bin/sh\n', { mode: 0o6755, uid: 0 }),
      file('bin/sgid', 'x', { mode: 0o2644 }),
      dir('tmp/', { mode: 0o1777 }),
      file('tmp/f', 'x', { mode: 0o4777 }),
    ),
    expect: tree('bin/', 'bin/sgid', 'bin/suid', 'tmp/', 'tmp/f'),
  },
  {
    name: 'a file then a directory of the same name',
    archive: tarGz(file('web/a'), dir('web/a/')),
    expect: refused('path_conflict'),
  },
  {
    name: 'a directory then a file of the same name',
    archive: tarGz(dir('web/a/'), file('web/a')),
    expect: refused('path_conflict'),
  },
  {
    name: 'a file below a file',
    archive: tarGz(file('web/a'), file('web/a/b')),
    expect: refused('path_conflict'),
  },
  {
    name: 'the same file twice',
    archive: tarGz(file('web/a', 'one'), file('web/a', 'two')),
    expect: refused('path_conflict'),
  },
  {
    name: 'a name component of 256 bytes',
    archive: tarGz(pax({ path: `web/${'a'.repeat(256)}` }), file('x')),
    expect: refused('unsafe_path'),
  },
  {
    name: 'a path of more than 4096 bytes',
    archive: tarGz(pax({ path: `web/${'a/'.repeat(2100)}f` }), file('x')),
    expect: refused('unsafe_path'),
  },
  {
    name: 'a control character in a name',
    archive: tarGz(ok, file('web/a\nb')),
    expect: refused('unsafe_path'),
  },
  {
    name: 'an escape sequence in a name',
    archive: tarGz(ok, file('web/\u001b[31mred')),
    expect: refused('unsafe_path'),
  },
  {
    name: 'a name that is not UTF-8',
    archive: tarGz(ok, file(Buffer.from([0x77, 0x65, 0x62, 0x2f, 0xff, 0xfe]))),
    expect: refused('unsafe_path'),
  },
  {
    name: 'a link target with a control character',
    archive: tarGz(ok, symlink('web/l', 'index\u0007.html')),
    expect: refused('unsafe_link'),
  },
  // Links.
  {
    name: 'a symlink escaping through another symlink',
    archive: tarGz(ok, symlink('here', '.'), symlink('web/a', '../here/../here/..')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a symlink escaping through one that comes later',
    archive: tarGz(ok, symlink('d/l', '../dot/..'), symlink('dot', '.')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a symlink loop',
    archive: tarGz(ok, symlink('a', 'b'), symlink('b', 'a')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a file written through a symlink',
    archive: tarGz(ok, symlink('w', 'web'), file('w/x')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a symlink replaced by a file',
    archive: tarGz(ok, symlink('web/l', 'index.html'), file('web/l')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a symlink replaced by a directory',
    archive: tarGz(ok, symlink('t', 'web'), dir('t/'), file('f')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a hard link replaced by a file',
    archive: tarGz(ok, hardlink('web/h', 'web/index.html'), file('web/h')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a hard link to a file not in the archive',
    archive: tarGz(ok, hardlink('web/h', 'web/missing')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a hard link to a directory',
    archive: tarGz(dir('web/'), ok, hardlink('h', 'web')),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a hard link to a later file',
    archive: tarGz(hardlink('h', 'web/index.html'), ok),
    expect: refused('unsafe_link'),
  },
  {
    name: 'a hard link inside the tree: kept as a relative symlink',
    archive: tarGz(ok, hardlink('web/copy.html', 'web/index.html')),
    expect: tree(...OK_TREE, 'web/copy.html -> index.html'),
  },
  {
    name: 'a symlink inside the tree',
    archive: tarGz(ok, dir('config/'), symlink('web/config', '../config')),
    expect: tree('config/', ...OK_TREE, 'web/config -> ../config'),
  },
  // Entry types.
  {
    name: 'a character device',
    archive: tarGz(ok, entry({ name: 'dev/null', type: '3' })),
    expect: refused('unsupported_entry'),
  },
  {
    name: 'a block device',
    archive: tarGz(ok, entry({ name: 'dev/sda', type: '4' })),
    expect: refused('unsupported_entry'),
  },
  {
    name: 'a fifo',
    archive: tarGz(ok, entry({ name: 'pipe', type: '6' })),
    expect: refused('unsupported_entry'),
  },
  {
    name: 'a GNU sparse file',
    archive: tarGz(ok, entry({ name: 'sparse', type: 'S', magic: 'gnu' }, 'x')),
    expect: refused('unsupported_entry'),
  },
  {
    name: 'an unknown typeflag',
    archive: tarGz(ok, entry({ name: 'odd', type: 'Z' }, 'x')),
    expect: refused('unsupported_entry'),
  },
  {
    name: 'a pax global header',
    archive: tarGz(pax({ path: '../evil' }, 'g'), ok),
    expect: refused('unsupported_entry'),
  },
  {
    name: 'a contiguous file: kept as a file',
    archive: tarGz(entry({ name: 'web/c.txt', type: '7' }, 'c\n')),
    expect: tree('web/', 'web/c.txt'),
  },
  // Sizes and bombs.
  {
    name: 'a huge declared size with no data',
    archive: tarGz(ok, header({ name: 'big', type: '0', size: 8 * 1024 * MiB })),
    expect: refused('uncompressed_too_large'),
  },
  {
    name: 'a huge size in GNU base-256',
    archive: tarGz(
      ok,
      header({ name: 'big', type: '0', sizeField: Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0]) }),
    ),
    expect: refused('uncompressed_too_large'),
  },
  {
    name: 'a decompression bomb (unpacked size)',
    archive: tarGz(file('zeros', Buffer.alloc(8 * MiB) as unknown as string)),
    limits: { maxUncompressedBytes: 4 * MiB, compressionRatioGraceBytes: 1024 * MiB },
    expect: refused('uncompressed_too_large'),
  },
  {
    name: 'a decompression bomb (ratio)',
    archive: tarGz(file('zeros', Buffer.alloc(8 * MiB) as unknown as string)),
    limits: { compressionRatioGraceBytes: MiB, maxCompressionRatio: 50 },
    expect: refused('compression_ratio'),
  },
  {
    name: 'more entries than allowed',
    archive: tarGz(...Array.from({ length: 30 }, (_, i) => file(`f${i}`))),
    limits: { maxEntries: 20 },
    expect: refused('too_many_entries'),
  },
  {
    name: 'an archive over the size limit',
    archive: gzipSync(tar(file('noise', randomBytes(128 * 1024).toString('base64')))),
    limits: { maxArchiveBytes: 32 * 1024 },
    expect: refused('archive_too_large'),
  },
  // Truncation at every layer, and other broken input.
  { name: 'gzip cut in its header', archive: tarGz(ok).subarray(0, 5), expect: refused('invalid_gzip') },
  {
    name: 'gzip cut in the middle',
    archive: tarGz(ok, file('web/b', 'x'.repeat(5000))).subarray(0, 60),
    expect: refused('invalid_gzip'),
  },
  {
    name: 'gzip without its trailer',
    archive: tarGz(ok).subarray(0, tarGz(ok).length - 8),
    expect: refused('invalid_gzip'),
  },
  {
    name: 'tar cut in a header',
    archive: gzipSync(tar(ok).subarray(0, 300)),
    expect: refused('invalid_tar'),
  },
  {
    name: 'tar cut in the data',
    archive: gzipSync(Buffer.concat([header({ name: 'f', type: '0', size: 4096 }), Buffer.alloc(1000)])),
    expect: refused('invalid_tar'),
  },
  {
    name: 'a header with a bad checksum',
    archive: tarGz(ok, entry({ name: 'bad', type: '0', badChecksum: true }, 'x')),
    expect: refused('invalid_tar'),
  },
  {
    name: 'not gzip at all',
    archive: Buffer.from('PK\u0003\u0004 a zip file'),
    expect: refused('invalid_gzip'),
  },
  {
    name: 'gzip of something that is not tar',
    archive: gzipSync(Buffer.from('hello\n'.repeat(200))),
    expect: refused('invalid_tar'),
  },
  {
    name: 'an archive with no files',
    archive: tarGz(dir('web/'), dir('web/empty/')),
    expect: refused('empty_archive'),
  },
  { name: 'an entry with an empty name', archive: tarGz(ok, file('')), expect: refused('unsafe_path') },
  // Benign edge cases that must still be accepted, unpacked the same by both tars.
  {
    name: 'unicode names',
    archive: tarGz(file('web/café.php'), file('web/日本語.html'), file('web/emoji-🚀.txt')),
    expect: tree('web/', 'web/café.php', 'web/emoji-🚀.txt', 'web/日本語.html'),
  },
  {
    name: 'spaces and dotfiles',
    archive: tarGz(file('web/my file.txt'), file('.env'), file('web/.htaccess')),
    expect: tree('.env', 'web/', 'web/.htaccess', 'web/my file.txt'),
  },
  {
    name: 'empty directories',
    archive: tarGz(dir('./'), dir('web/'), dir('web/empty/'), dir('storage/logs/'), ok),
    expect: tree('storage/', 'storage/logs/', ...OK_TREE, 'web/empty/'),
  },
  { name: 'a directory named twice', archive: tarGz(dir('web/'), ok, dir('web/')), expect: tree(...OK_TREE) },
  {
    name: 'an empty file and an executable',
    archive: tarGz(file('web/empty', ''), file('bin/run', '#!/bin/sh\n', { mode: 0o755 })),
    expect: tree('bin/', 'bin/run', 'web/', 'web/empty'),
  },
  {
    name: 'a deep path and a 255-byte name',
    archive: tarGz(pax({ path: `${'d/'.repeat(30)}${'n'.repeat(255)}` }), file('ignored')),
    expect: tree(
      ...Array.from({ length: 30 }, (_, i) => `${'d/'.repeat(i + 1)}`),
      `${'d/'.repeat(30)}${'n'.repeat(255)}`,
    ),
  },
  {
    name: 'a long name in the ustar prefix',
    archive: tarGz(file('index.html', 'x', { prefix: `web/${'p'.repeat(120)}` })),
    expect: tree('web/', `web/${'p'.repeat(120)}/`, `web/${'p'.repeat(120)}/index.html`),
  },
  {
    name: 'a long name as a GNU long name',
    archive: tarGz(gnuLong('L', `web/${'g'.repeat(150)}.txt`), file('short')),
    expect: tree('web/', `web/${'g'.repeat(150)}.txt`),
  },
  {
    name: 'a v7 header (no magic)',
    archive: tarGz(file('web/old.txt', 'x', { magic: 'v7' })),
    expect: refused('invalid_tar'),
  },
  { name: 'no end-of-archive blocks', archive: gzipSync(Buffer.concat([ok])), expect: tree(...OK_TREE) },
  {
    name: 'a modification time after 2038 (beyond 32 bits): clamped',
    archive: tarGz(file('web/future.txt', 'x', { mtime: 2 ** 33 }), symlink('web/link', 'future.txt')),
    expect: tree('web/', 'web/future.txt', 'web/link -> future.txt'),
  },
  {
    name: 'a pax header with a comment and mtime',
    archive: tarGz(pax({ mtime: '1700000000.5', comment: 'built by CI' }), ok),
    expect: tree(...OK_TREE),
  },
];

/** The tree under `root` as the kernel sees it: 'dir/', 'file', 'link -> target'. */
async function treeOf(root: string): Promise<{ paths: string[]; specialModes: string[] }> {
  const paths: string[] = [];
  const specialModes: string[] = [];
  for (const name of await readdir(root, { recursive: true })) {
    const path = join(root, name);
    const info = await lstat(path);
    if (info.mode & 0o7000) specialModes.push(`${name} ${(info.mode & 0o7777).toString(8)}`);
    if (info.isSymbolicLink()) paths.push(`${name} -> ${await readlink(path)}`);
    else if (info.isDirectory()) paths.push(`${name}/`);
    else if (info.isFile()) paths.push(name);
    else paths.push(`${name} (special file)`);
  }
  return { paths: paths.sort(), specialModes };
}

/** Unpacks `archive` with `command` into a fresh root inside a sandbox; what landed and where. */
async function unpack(command: string[], archive: string) {
  const sandbox = await mkdtemp(join(work, 'unpack-'));
  const root = join(sandbox, 'root');
  await mkdir(root);
  await run(command[0]!, [...command.slice(1), '-xzf', archive, '-C', root]);
  const escaped = (await readdir(sandbox)).filter((n) => n !== 'root');
  const result = await treeOf(root);
  // Every link resolves inside the root, lexically and on disk.
  for (const line of result.paths.filter((p) => p.includes(' -> '))) {
    const [name, target] = line.split(' -> ') as [string, string];
    const lexical = resolve(dirname(join(root, name)), target);
    if (!lexical.startsWith(`${root}/`) && lexical !== root) escaped.push(line);
    const real = await realpath(join(root, name)).catch(() => undefined);
    if (real && !real.startsWith(`${await realpath(root)}/`)) escaped.push(`${line} (real ${real})`);
  }
  return { ...result, escaped };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'slipway-corpus-'));
  store = new FilesystemArchiveStore(join(work, 'store'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the hostile archive corpus', () => {
  it('has at least 60 archives, hostile and benign', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const outcome = await store
      .receive(Readable.from([c.archive]), { namespace: 'corpus', project: 'site' }, archiveLimits(c.limits))
      .then(
        (stored) => ({ stored }),
        (error: unknown) => ({ error }),
      );
    if ('refused' in c.expect) {
      expect('error' in outcome && outcome.error instanceof ArchiveError).toBe(true);
      const error = (outcome as { error: ArchiveError }).error;
      expect(error.code).toBe(c.expect.refused);
      expect(error.message.length).toBeGreaterThan(10);
      return;
    }
    if ('error' in outcome) throw outcome.error;
    const stored = join(work, 'store', outcome.stored.key);
    const canonical = await readTarGz(await readFile(stored));
    const gnu = await unpack(['tar'], stored);
    const busybox = await unpack(['busybox', 'tar'], stored);
    for (const result of [gnu, busybox]) {
      expect(result.escaped).toEqual([]);
      expect(result.specialModes).toEqual([]);
      expect(result.paths).toEqual([...c.expect.tree].sort());
    }
    // The stored archive lists exactly those entries (parents implied where not named).
    const listed = canonical.map((e) => (e.linkname ? `${e.name} -> ${e.linkname}` : e.name));
    for (const path of listed) expect(c.expect.tree).toContain(path);
    expect(existsSync(outside)).toBe(false);
  });
});
