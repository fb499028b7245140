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
  | { type: 'file'; path: string; mode: 0o644 | 0o755; size: number; mtime: Date }
  | { type: 'directory'; path: string; mode: 0o755; mtime: Date }
  | { type: 'symlink'; path: string; target: string; mtime: Date };

const REGULAR = new Set(['file', 'contiguous-file']);

/** One path of the unpacked tree: what the archive made it, and what is below it. */
interface PathNode {
  kind: 'directory' | 'file' | 'symlink';
  /** For a symlink: its target as written. */
  target?: string;
  children?: Map<string, PathNode>;
}

/**
 * Symlink resolution steps for a whole archive; beyond it the archive is refused. Legitimate
 * trees need a few per link; a crafted one (thousands of long, chained links) could otherwise
 * keep the gateway busy for minutes.
 */
const MAX_RESOLUTION_STEPS = 2_000_000;

export class ArchiveEntryPolicy {
  readonly #limits: Pick<ArchiveLimits, 'maxEntries' | 'maxUncompressedBytes'>;
  #entries = 0;
  #files = 0;
  #declaredBytes = 0;
  /** The tree as unpacking would build it, one node per path component: each check walks it once. */
  readonly #root: PathNode = { kind: 'directory', children: new Map() };
  /** Nodes in the tree, implied directories included; bounded like the entries. */
  #nodes = 0;
  #resolutionSteps = 0;
  /** Every symlink: where it is and its target, checked again once the whole tree is known. */
  readonly #symlinks: Array<{ path: string; parent: string[]; target: string }> = [];

  constructor(limits: Pick<ArchiveLimits, 'maxEntries' | 'maxUncompressedBytes'>) {
    this.#limits = limits;
  }

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
    if (segments.length === 0) return undefined;
    const path = segments.join('/');
    const parent = this.#parentOf(segments, header.name);
    const name = segments[segments.length - 1]!;
    const existing = parent.children!.get(name);
    if (existing?.kind === 'symlink') {
      // A later entry of the same name replaces a link on disk, while these checks would go on
      // resolving paths through the link they remember: refuse to let a link be replaced.
      throw new ArchiveError(
        'unsafe_link',
        `entry ${quoteEntry(header.name)} replaces a link of the same name`,
      );
    }
    if (existing?.kind === 'file') {
      throw new ArchiveError(
        'path_conflict',
        `entry ${quoteEntry(header.name)} appears twice in the archive`,
      );
    }
    if (existing && type !== 'directory') {
      throw new ArchiveError(
        'path_conflict',
        `entry ${quoteEntry(header.name)} is a ${type === 'unknown' ? 'non-directory' : type} where the archive has a directory`,
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
    const mtime = canonicalTime(header.mtime);

    if (REGULAR.has(type)) {
      this.#add(parent, name, { kind: 'file' });
      this.#files += 1;
      const mode = (header.mode ?? 0) & 0o111 ? 0o755 : 0o644;
      return { type: 'file', path, mode, size, mtime };
    }
    if (type === 'directory') {
      if (existing) return undefined;
      this.#add(parent, name, { kind: 'directory', children: new Map() });
      return { type: 'directory', path, mode: 0o755, mtime };
    }
    if (type === 'symlink') {
      const target = linkTarget(header, 'symlink');
      return this.#addSymlink(parent, segments, path, target, mtime);
    }
    if (type === 'link') {
      // A hard link becomes a relative symlink to the file it names: the canonical archive holds
      // no hard links, and a symlink is checked like every other one.
      const target = linkTarget(header, 'hard link');
      const targetSegments = entrySegments(target);
      if (this.#lookup(targetSegments)?.kind !== 'file') {
        throw new ArchiveError(
          'unsafe_link',
          `hard link ${quoteEntry(header.name)} names ${quoteEntry(target)}, which is not a file earlier in the archive`,
        );
      }
      return this.#addSymlink(parent, segments, path, relativeTarget(segments, targetSegments), mtime);
    }
    throw new ArchiveError(
      'unsupported_entry',
      `entry ${quoteEntry(header.name)} is a ${describeType(type)}; only files, directories and links are allowed`,
    );
  }

  /** Checks that need the whole archive: at least one file, and links through links that appear later. */
  finish(): void {
    if (this.#files === 0) throw new ArchiveError('empty_archive', 'the archive contains no files');
    for (const link of this.#symlinks) this.#rejectEscapingSymlink(link.path, link.parent, link.target);
  }

  /** The directory an entry goes into, made (implied) where missing; never through a link or a file. */
  #parentOf(segments: readonly string[], name: string): PathNode {
    let node = this.#root;
    for (let i = 0; i < segments.length - 1; i += 1) {
      let child = node.children!.get(segments[i]!);
      if (child?.kind === 'symlink') {
        throw new ArchiveError(
          'unsafe_link',
          `entry ${quoteEntry(name)} would be written through the symlink ${quoteEntry(segments.slice(0, i + 1).join('/'))}`,
        );
      }
      if (child?.kind === 'file') {
        throw new ArchiveError(
          'path_conflict',
          `entry ${quoteEntry(name)} needs ${quoteEntry(segments.slice(0, i + 1).join('/'))} to be a directory, but it is a file`,
        );
      }
      if (!child) child = this.#add(node, segments[i]!, { kind: 'directory', children: new Map() });
      node = child;
    }
    return node;
  }

  #add(parent: PathNode, name: string, node: PathNode): PathNode {
    this.#nodes += 1;
    if (this.#nodes > 2 * this.#limits.maxEntries) {
      throw new ArchiveError(
        'too_many_entries',
        `the archive's paths name more than ${2 * this.#limits.maxEntries} files and directories`,
      );
    }
    parent.children!.set(name, node);
    return node;
  }

  #addSymlink(
    parent: PathNode,
    segments: string[],
    path: string,
    target: string,
    mtime: Date,
  ): CanonicalEntry {
    this.#add(parent, segments[segments.length - 1]!, { kind: 'symlink', target });
    const link = { path, parent: segments.slice(0, -1), target };
    this.#symlinks.push(link);
    this.#rejectEscapingSymlink(link.path, link.parent, link.target);
    return { type: 'symlink', path, target, mtime };
  }

  /** The node at `segments`, without following links; undefined when there is none. */
  #lookup(segments: readonly string[]): PathNode | undefined {
    let node: PathNode | undefined = this.#root;
    for (const segment of segments) node = node?.children?.get(segment);
    return node;
  }

  #rejectEscapingSymlink(path: string, parent: readonly string[], target: string): void {
    const where = this.#resolve(parent, target);
    if (where === 'escapes') {
      throw new ArchiveError(
        'unsafe_link',
        `symlink ${quoteEntry(path)} points outside the archive (${quoteEntry(target)})`,
      );
    }
    if (where === 'loop')
      throw new ArchiveError('unsafe_link', `symlink ${quoteEntry(path)} is part of a symlink loop`);
  }

  /**
   * Walks `from` + `target` as the kernel would after unpacking, substituting the archive's
   * symlinks as it meets them, and reports whether the walk ever climbs above the archive root.
   * One step per path component (the tree is walked node by node, never by joined paths).
   */
  #resolve(from: readonly string[], target: string): 'inside' | 'escapes' | 'loop' {
    const stack: Array<PathNode | undefined> = [this.#root];
    for (const segment of from) stack.push(stack[stack.length - 1]?.children?.get(segment));
    // Components still to walk, last first (so a link's target is pushed in front cheaply).
    const pending = target.split('/').reverse();
    let hops = 0;
    while (pending.length > 0) {
      this.#resolutionSteps += 1;
      if (this.#resolutionSteps > MAX_RESOLUTION_STEPS) {
        throw new ArchiveError('unsafe_link', "the archive's symlinks take too many steps to resolve");
      }
      const segment = pending.pop()!;
      if (segment === '' || segment === '.') continue;
      if (segment === '..') {
        if (stack.length === 1) return 'escapes';
        stack.pop();
        continue;
      }
      const node = stack[stack.length - 1]?.children?.get(segment);
      if (node?.kind === 'symlink') {
        hops += 1;
        if (hops > MAX_SYMLINK_HOPS) return 'loop';
        if (node.target!.startsWith('/')) return 'escapes';
        pending.push(...node.target!.split('/').reverse());
        continue;
      }
      // A path that does not exist (yet) is walked as an empty directory: finish() checks again.
      stack.push(node);
    }
    return 'inside';
  }
}

/** Entry times as the canonical archive writes them: whole seconds from 1970 to 2038. */
function canonicalTime(mtime: Date | null | undefined): Date {
  const seconds = Math.floor((mtime?.getTime() ?? 0) / 1000);
  return new Date(Math.min(Math.max(Number.isFinite(seconds) ? seconds : 0, 0), 2 ** 31 - 1) * 1000);
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
