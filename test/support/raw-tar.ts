// Tar archives written byte by byte, so tests can craft what no well-behaved tar writes: any
// typeflag, ustar or GNU magic, a prefix field, pax records with NUL bytes, GNU long names, bad
// checksums, huge declared sizes, truncation anywhere.
import { gzipSync } from 'node:zlib';

export interface RawHeader {
  name: string | Buffer;
  /** Typeflag: '0' file, '1' hard link, '2' symlink, '3'/'4' devices, '5' directory, '6' fifo,
   * '7' contiguous, 'x'/'g' pax, 'L'/'K' GNU long name/link, 'S' GNU sparse. */
  type: string;
  mode?: number;
  uid?: number;
  size?: number;
  /** Raw bytes for the 12-byte size field (for base-256 or malformed sizes). */
  sizeField?: Buffer;
  linkname?: string | Buffer;
  /** `ustar` (POSIX, prefix honoured by every reader), `gnu` (GNU magic: the prefix field is not a prefix), `v7`. */
  magic?: 'ustar' | 'gnu' | 'v7';
  prefix?: string | Buffer;
  /** Seconds since 1970 (octal in the header, so up to 8^11 - 1). */
  mtime?: number;
  /** Write a wrong checksum. */
  badChecksum?: boolean;
}

const field = (block: Buffer, offset: number, length: number, value: string | Buffer) => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  bytes.copy(block, offset, 0, Math.min(bytes.length, length));
};
const octal = (block: Buffer, offset: number, length: number, value: number) =>
  block.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, 'ascii');

export function header(h: RawHeader): Buffer {
  const block = Buffer.alloc(512);
  field(block, 0, 100, h.name);
  octal(block, 100, 8, h.mode ?? (h.type === '5' ? 0o755 : 0o644));
  octal(block, 108, 8, h.uid ?? 1000);
  octal(block, 116, 8, h.uid ?? 1000);
  if (h.sizeField) h.sizeField.copy(block, 124, 0, 12);
  else octal(block, 124, 12, h.size ?? 0);
  octal(block, 136, 12, h.mtime ?? 1_700_000_000);
  block.fill(' ', 148, 156);
  block.write(h.type, 156, 'ascii');
  if (h.linkname !== undefined) field(block, 157, 100, h.linkname);
  const magic = h.magic ?? 'ustar';
  if (magic === 'ustar') {
    block.write('ustar\u000000', 257, 'binary');
  } else if (magic === 'gnu') {
    block.write('ustar  \u0000', 257, 'binary');
  }
  if (magic !== 'v7') {
    field(block, 265, 32, 'user');
    field(block, 297, 32, 'user');
  }
  if (h.prefix !== undefined) field(block, 345, 155, h.prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  if (h.badChecksum) sum += 1;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

const pad = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

/** A header and its data (the size comes from the data unless the header says otherwise). */
export function entry(h: RawHeader, data: string | Buffer = Buffer.alloc(0)): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([header({ size: bytes.length, ...h }), pad(bytes)]);
}

export const file = (
  name: string | Buffer,
  content = `contents of ${String(name)}\n`,
  extra: Partial<RawHeader> = {},
) => entry({ name, type: '0', ...extra }, content);
export const dir = (name: string, extra: Partial<RawHeader> = {}) => entry({ name, type: '5', ...extra });
export const symlink = (name: string | Buffer, target: string | Buffer) =>
  entry({ name, type: '2', linkname: target });
export const hardlink = (name: string, target: string) => entry({ name, type: '1', linkname: target });

/** A pax extended header ('x', for the next entry; 'g', global) with the given records. */
export function pax(records: Record<string, string | Buffer>, type: 'x' | 'g' = 'x'): Buffer {
  const body = Buffer.concat(
    Object.entries(records).map(([key, value]) => {
      const rest = Buffer.concat([
        Buffer.from(` ${key}=`),
        typeof value === 'string' ? Buffer.from(value) : value,
        Buffer.from('\n'),
      ]);
      let length = rest.length + 1;
      while (String(length).length + rest.length !== length) length += 1;
      return Buffer.concat([Buffer.from(String(length)), rest]);
    }),
  );
  return entry({ name: 'PaxHeaders/entry', type }, body);
}

/** A GNU long name ('L') or long link target ('K') for the next entry. */
export const gnuLong = (type: 'L' | 'K', value: string | Buffer) =>
  entry({ name: '././@LongLink', type, magic: 'gnu' }, Buffer.concat([Buffer.from(value), Buffer.from([0])]));

/** The two zero blocks that end an archive. */
export const END = Buffer.alloc(1024);

export const tar = (...parts: Buffer[]) => Buffer.concat([...parts, END]);
export const tarGz = (...parts: Buffer[]) => gzipSync(tar(...parts));
