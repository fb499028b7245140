// Which tar entries an uploaded archive may contain, and the canonical form each is re-written
// in (canonical.ts). The build Job unpacks the canonical archive, so nothing in it may write or
// point outside the unpacked tree: no absolute paths, no `..`, no links that resolve outside
// (followed through other links in the archive), no devices, fifos or sparse files; names are
// valid UTF-8 without control characters, every component at most 255 bytes, no entry twice
// and no file where a directory is (or the reverse). Modes lose setuid, setgid and sticky bits.
// Memory stays bounded: paths are remembered, and there are at most `maxEntries` of them.
import { MAX_ARCHIVE_NAME_BYTES, MAX_ARCHIVE_PATH_BYTES, MAX_SYMLINK_HOPS } from '../limits.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { ArchiveError, quoteEntry } from './errors.ts';

/** The fields of a tar header the policy reads (tar-stream's header satisfies it). */
export interface EntryHeader {
  name: string;
  type: string | null;
  linkname?: string | null;
  size?: number | null;
  mode?: number | null;
  mtime?: Date | null;
}

/** An entry as the canonical archive holds it: owner root, no special mode bits. */
export type CanonicalEntry =
  | { type: 'file'; path: string; mode: 0o644 | 0o755; size: number; mtime: Date | undefined }
  | { type: 'directory'; path: string; mode: 0o755; mtime: Date | undefined }
  | { type: 'symlink'; path: string; target: string };

const REGULAR = new Set(['file', 'contiguous-file']);

export class ArchiveEntryPolicy {
  readonly #limits: Pick<ArchiveLimits, 'maxEntries' | 'maxUncompressedBytes'>;
  #entries = 0;
  #declaredBytes = 0;
  /** Symlink path (normalised) → its target as written. */
  readonly #symlinks = new Map<string, string>();
  /** Paths of regular files and of directories (named or implied by a deeper entry). */
  readonly #files = new Set<string>();
  readonly #directories = new Set<string>();

  constructor(limits: Pick<ArchiveLimits, 'maxEntries' | 'maxUncompressedBytes'>) {
    this.#limits = limits;
  }

  get entries(): number {
    return this.#entries;
  }

  /** Entries of the canonical archive (the root and repeated directories are left out). */
  written = 0;

  /**
   * Throws ArchiveError when the entry may not be unpacked; otherwise its canonical form, or
   * undefined for an entry that adds nothing (the root, a directory named again). Called for
   * every entry, in order.
   */
  check(header: EntryHeader): CanonicalEntry | undefined {
    this.#entries += 1;
    if (this.#entries > this.#limits.maxEntries) {
      throw new ArchiveError(
        'too_many_entries',
        `the archive has more than ${this.#limits.maxEntries} entries`,
      );
    }

    const type = header.type ?? 'unknown';
    const segments = entrySegments(header.name);
    if (segments.length === 0 && type !== 'directory') {
      throw new ArchiveError('unsafe_path', `an entry of type ${type} has an empty name`);
    }
    const path = segments.join('/');
    if (path === '') return undefined;
    this.#rejectInsideSymlink(segments, header.name);
    // A later entry of the same name replaces a link on disk, while these checks would go on
    // resolving paths through the link they remember: refuse to let a link be replaced.
    if (this.#symlinks.has(path)) {
      throw new ArchiveError(
        'unsafe_link',
        `entry ${quoteEntry(header.name)} replaces a link of the same name`,
      );
    }
    this.#rejectConflicts(segments, header.name, type);

    const size = header.size ?? 0;
    this.#declaredBytes += size;
    if (this.#declaredBytes > this.#limits.maxUncompressedBytes) {
      throw new ArchiveError(
        'uncompressed_too_large',
        `the archive unpacks to more than ${this.#limits.maxUncompressedBytes} bytes (at entry ${quoteEntry(header.name)})`,
      );
    }
    const mtime = header.mtime ?? undefined;

    if (REGULAR.has(type)) {
      this.#files.add(path);
      const mode = (header.mode ?? 0) & 0o111 ? 0o755 : 0o644;
      return { type: 'file', path, mode, size, mtime };
    }
    if (type === 'directory') {
      if (this.#directories.has(path)) return undefined;
      this.#directories.add(path);
      return { type: 'directory', path, mode: 0o755, mtime };
    }
    if (type === 'symlink') {
      const target = linkTarget(header, 'symlink');
      this.#symlinks.set(path, target);
      this.#rejectEscapingSymlink(path, target);
      return { type: 'symlink', path, target };
    }
    if (type === 'link') {
      // A hard link becomes a relative symlink to the file it names: the canonical archive holds
      // no hard links, and a symlink is checked like every other one.
      const target = linkTarget(header, 'hard link');
      const targetPath = entrySegments(target).join('/');
      if (!this.#files.has(targetPath)) {
        throw new ArchiveError(
          'unsafe_link',
          `hard link ${quoteEntry(header.name)} names ${quoteEntry(target)}, which is not a file earlier in the archive`,
        );
      }
      const relative = relativeTarget(segments, targetPath.split('/'));
      this.#symlinks.set(path, relative);
      return { type: 'symlink', path, target: relative };
    }
    throw new ArchiveError(
      'unsupported_entry',
      `entry ${quoteEntry(header.name)} is a ${describeType(type)}; only files, directories and links are allowed`,
    );
  }

  /** Each path is one thing: a file, a directory or a link, named once (directories may repeat). */
  #rejectConflicts(segments: string[], name: string, type: string): void {
    for (let i = 1; i < segments.length; i += 1) {
      const parent = segments.slice(0, i).join('/');
      if (this.#files.has(parent)) {
        throw new ArchiveError(
          'path_conflict',
          `entry ${quoteEntry(name)} needs ${quoteEntry(parent)} to be a directory, but it is a file`,
        );
      }
    }
    const path = segments.join('/');
    if (this.#files.has(path)) {
      throw new ArchiveError('path_conflict', `entry ${quoteEntry(name)} appears twice in the archive`);
    }
    if (this.#directories.has(path) && type !== 'directory') {
      throw new ArchiveError(
        'path_conflict',
        `entry ${quoteEntry(name)} is a ${type === 'unknown' ? 'non-directory' : type} where the archive has a directory`,
      );
    }
    for (let i = 1; i < segments.length; i += 1) this.#directories.add(segments.slice(0, i).join('/'));
  }

  /** Checks that need the whole archive: at least one file, and links through links that appear later. */
  finish(): void {
    if (this.#files.size === 0) throw new ArchiveError('empty_archive', 'the archive contains no files');
    for (const [path, target] of this.#symlinks) this.#rejectEscapingSymlink(path, target);
  }

  #rejectInsideSymlink(segments: string[], name: string): void {
    for (let i = 1; i < segments.length; i += 1) {
      const parent = segments.slice(0, i).join('/');
      if (this.#symlinks.has(parent)) {
        throw new ArchiveError(
          'unsafe_link',
          `entry ${quoteEntry(name)} would be written through the symlink ${quoteEntry(parent)}`,
        );
      }
    }
  }

  #rejectEscapingSymlink(path: string, target: string): void {
    const parent = path.split('/').slice(0, -1);
    const where = resolveInsideTree(parent, target.split('/'), this.#symlinks);
    if (where === 'escapes') {
      throw new ArchiveError(
        'unsafe_link',
        `symlink ${quoteEntry(path)} points outside the archive (${quoteEntry(target)})`,
      );
    }
    if (where === 'loop')
      throw new ArchiveError('unsafe_link', `symlink ${quoteEntry(path)} is part of a symlink loop`);
  }
}

/**
 * The path segments of an entry name, without `.` and empty ones; rejects absolute and `..`
 * paths, names that are not valid UTF-8 (decoded with U+FFFD in place of bad bytes) or hold
 * control characters, and components over 255 bytes (what Linux file systems accept).
 */
export function entrySegments(name: string): string[] {
  if (Buffer.byteLength(name) > MAX_ARCHIVE_PATH_BYTES) {
    throw new ArchiveError(
      'unsafe_path',
      `entry ${quoteEntry(name)} has a path longer than ${MAX_ARCHIVE_PATH_BYTES} bytes`,
    );
  }
  checkText(name, `entry ${quoteEntry(name)}`, 'unsafe_path');
  if (name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name) || name.startsWith('\\')) {
    throw new ArchiveError('unsafe_path', `entry ${quoteEntry(name)} has an absolute path`);
  }
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) {
    throw new ArchiveError('unsafe_path', `entry ${quoteEntry(name)} contains '..'`);
  }
  const long = segments.find((s) => Buffer.byteLength(s) > MAX_ARCHIVE_NAME_BYTES);
  if (long) {
    throw new ArchiveError(
      'unsafe_path',
      `entry ${quoteEntry(name)} has a name component longer than ${MAX_ARCHIVE_NAME_BYTES} bytes`,
    );
  }
  return segments;
}

/** Names and link targets: valid UTF-8, no NUL or other control characters (tar cuts at NUL). */
function checkText(text: string, what: string, code: 'unsafe_path' | 'unsafe_link'): void {
  if (text.includes('\uFFFD')) throw new ArchiveError(code, `${what} is not valid UTF-8`);
  if (/\p{Cc}/u.test(text)) throw new ArchiveError(code, `${what} contains a control character`);
}

/** The target of a symlink at `from` that names the archive path `to`. */
function relativeTarget(from: readonly string[], to: readonly string[]): string {
  const dir = from.slice(0, -1);
  let common = 0;
  while (common < dir.length && common < to.length - 1 && dir[common] === to[common]) common += 1;
  return [...Array<string>(dir.length - common).fill('..'), ...to.slice(common)].join('/');
}

function linkTarget(header: EntryHeader, kind: 'symlink' | 'hard link'): string {
  const target = header.linkname ?? '';
  if (target === '') throw new ArchiveError('unsafe_link', `link ${quoteEntry(header.name)} has no target`);
  if (Buffer.byteLength(target) > MAX_ARCHIVE_PATH_BYTES) {
    throw new ArchiveError(
      'unsafe_link',
      `link ${quoteEntry(header.name)} has a target longer than ${MAX_ARCHIVE_PATH_BYTES} bytes`,
    );
  }
  checkText(target, `the target of link ${quoteEntry(header.name)}`, 'unsafe_link');
  if (target.startsWith('/')) {
    throw new ArchiveError(
      'unsafe_link',
      `${kind} ${quoteEntry(header.name)} points to the absolute path ${quoteEntry(target)}`,
    );
  }
  return target;
}

/**
 * Walks `from` + `rest` as the kernel would after unpacking, substituting the archive's symlinks
 * as it meets them, and reports whether the walk ever climbs above the archive root.
 */
export function resolveInsideTree(
  from: readonly string[],
  rest: readonly string[],
  symlinks: ReadonlyMap<string, string>,
): 'inside' | 'escapes' | 'loop' {
  const stack = [...from];
  const queue = [...rest];
  let hops = 0;
  while (queue.length > 0) {
    const segment = queue.shift() as string;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (stack.length === 0) return 'escapes';
      stack.pop();
      continue;
    }
    stack.push(segment);
    const target = symlinks.get(stack.join('/'));
    if (target === undefined) continue;
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) return 'loop';
    if (target.startsWith('/')) return 'escapes';
    stack.pop();
    queue.unshift(...target.split('/'));
  }
  return 'inside';
}

function describeType(type: string): string {
  switch (type) {
    case 'character-device':
      return 'character device';
    case 'block-device':
      return 'block device';
    case 'fifo':
      return 'fifo (named pipe)';
    default:
      return `${type} entry`;
  }
}
