// Which tar entries an uploaded archive may contain. The build Job unpacks the archive, so nothing
// in it may write or point outside the unpacked tree: no absolute paths, no `..`, no links that
// resolve outside (followed through other links in the archive), no devices or fifos.
// Memory stays bounded: only links are remembered, and there are at most `maxEntries` of them.
import { MAX_ARCHIVE_PATH_BYTES, MAX_SYMLINK_HOPS } from '../limits.ts';
import type { ArchiveLimits } from './archive-limits.ts';
import { ArchiveError, quoteEntry } from './errors.ts';

/** The fields of a tar header the policy reads (tar-stream's header satisfies it). */
export interface EntryHeader {
  name: string;
  type: string | null;
  linkname?: string | null;
  size?: number | null;
}

const REGULAR = new Set(['file', 'contiguous-file']);

export class ArchiveEntryPolicy {
  readonly #limits: Pick<ArchiveLimits, 'maxEntries' | 'maxUncompressedBytes'>;
  #entries = 0;
  #files = 0;
  #declaredBytes = 0;
  /** Symlink path (normalised) → its target as written. */
  readonly #symlinks = new Map<string, string>();
  readonly #hardlinks: Array<{ name: string; target: string }> = [];
  readonly #hardlinkNames = new Set<string>();

  constructor(limits: Pick<ArchiveLimits, 'maxEntries' | 'maxUncompressedBytes'>) {
    this.#limits = limits;
  }

  get entries(): number {
    return this.#entries;
  }

  /** Throws ArchiveError when the entry may not be unpacked. Called for every entry, in order. */
  check(header: EntryHeader): void {
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
    this.#rejectInsideSymlink(segments, header.name);
    // A later entry of the same name replaces a link on disk, while these checks would go on
    // resolving paths through the link they remember: refuse to let a link be replaced.
    if (this.#symlinks.has(path) || this.#hardlinkNames.has(path)) {
      throw new ArchiveError(
        'unsafe_link',
        `entry ${quoteEntry(header.name)} replaces a link of the same name`,
      );
    }

    const size = header.size ?? 0;
    this.#declaredBytes += size;
    if (this.#declaredBytes > this.#limits.maxUncompressedBytes) {
      throw new ArchiveError(
        'uncompressed_too_large',
        `the archive unpacks to more than ${this.#limits.maxUncompressedBytes} bytes (at entry ${quoteEntry(header.name)})`,
      );
    }

    if (REGULAR.has(type)) {
      this.#files += 1;
    } else if (type === 'directory') {
      // nothing to check beyond the path
    } else if (type === 'symlink') {
      const target = linkTarget(header);
      if (target.startsWith('/')) {
        throw new ArchiveError(
          'unsafe_link',
          `symlink ${quoteEntry(header.name)} points to the absolute path ${quoteEntry(target)}`,
        );
      }
      this.#symlinks.set(path, target);
      this.#rejectEscapingSymlink(path, target);
    } else if (type === 'link') {
      const target = linkTarget(header);
      if (target.startsWith('/')) {
        throw new ArchiveError(
          'unsafe_link',
          `hard link ${quoteEntry(header.name)} points to the absolute path ${quoteEntry(target)}`,
        );
      }
      this.#hardlinks.push({ name: header.name, target });
      this.#hardlinkNames.add(path);
      this.#rejectEscapingHardlink(header.name, target);
    } else {
      throw new ArchiveError(
        'unsupported_entry',
        `entry ${quoteEntry(header.name)} is a ${describeType(type)}; only files, directories and links are allowed`,
      );
    }
  }

  /** Checks that need the whole archive: at least one file, and links through links that appear later. */
  finish(): void {
    if (this.#files === 0) throw new ArchiveError('empty_archive', 'the archive contains no files');
    for (const [path, target] of this.#symlinks) this.#rejectEscapingSymlink(path, target);
    for (const { name, target } of this.#hardlinks) this.#rejectEscapingHardlink(name, target);
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

  #rejectEscapingHardlink(name: string, target: string): void {
    // A hard link's target is a path from the archive root, resolved through symlinks on disk.
    const where = resolveInsideTree([], target.split('/'), this.#symlinks);
    if (where !== 'inside') {
      throw new ArchiveError(
        'unsafe_link',
        `hard link ${quoteEntry(name)} points outside the archive (${quoteEntry(target)})`,
      );
    }
  }
}

/** The path segments of an entry name, without `.` and empty ones; rejects absolute and `..` paths. */
export function entrySegments(name: string): string[] {
  if (Buffer.byteLength(name) > MAX_ARCHIVE_PATH_BYTES) {
    throw new ArchiveError(
      'unsafe_path',
      `entry ${quoteEntry(name)} has a path longer than ${MAX_ARCHIVE_PATH_BYTES} bytes`,
    );
  }
  if (name.startsWith('/') || /^[A-Za-z]:[\\/]/.test(name) || name.startsWith('\\')) {
    throw new ArchiveError('unsafe_path', `entry ${quoteEntry(name)} has an absolute path`);
  }
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) {
    throw new ArchiveError('unsafe_path', `entry ${quoteEntry(name)} contains '..'`);
  }
  return segments;
}

function linkTarget(header: EntryHeader): string {
  const target = header.linkname ?? '';
  if (target === '') throw new ArchiveError('unsafe_link', `link ${quoteEntry(header.name)} has no target`);
  if (Buffer.byteLength(target) > MAX_ARCHIVE_PATH_BYTES) {
    throw new ArchiveError(
      'unsafe_link',
      `link ${quoteEntry(header.name)} has a target longer than ${MAX_ARCHIVE_PATH_BYTES} bytes`,
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
