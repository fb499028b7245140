// The gzip stage of the canonical re-write. Deflate spends most of its time looking for matches
// that incompressible content (images, fonts, zips, minified bundles already gzip'd) does not
// have: level 1 runs at ~40 MiB/s on such bytes and gains nothing. So the tar stream is cut into
// fixed blocks, a small sample of each block is test-compressed (the way borg's `auto`
// compression predicts), and blocks whose sample does not shrink are stored (level 0, ~10x
// faster) while the rest get level 1. Blocks are cut at fixed offsets of the tar stream and the
// decision depends only on their bytes, so the same upload always yields the same archive —
// the store is content-addressed, and a retried upload must find its own archive again.
// The gzip framing (RFC 1952 header and CRC-32/size trailer) is written here around a raw
// deflate stream, because Node's `params()` (the level change) does nothing on a gzip stream.
import { Transform, type TransformCallback } from 'node:stream';
import { constants, crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';

/** Bytes per decision; also the size of every write into zlib, which keeps its output stable. */
export const COMPRESSION_BLOCK_BYTES = 256 * 1024;
/** Bytes test-compressed from the middle of each block. */
const SAMPLE_BYTES = 8 * 1024;
/** A block whose sample compresses to more than this fraction is stored. */
const INCOMPRESSIBLE_RATIO = 0.97;

const COMPRESSED_LEVEL = 1;
const STORED_LEVEL = 0;

/** A gzip member header: deflate, no name or time, "fastest" (XFL 4), Unix (OS 3). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3]);

/** The level a block is written with: 0 when a sample of it does not compress, else 1. */
export function levelForBlock(block: Buffer): number {
  if (block.length < SAMPLE_BYTES * 2) return COMPRESSED_LEVEL;
  const start = Math.floor((block.length - SAMPLE_BYTES) / 2);
  const sample = block.subarray(start, start + SAMPLE_BYTES);
  const compressed = deflateRawSync(sample, { level: COMPRESSED_LEVEL }).length;
  return compressed > sample.length * INCOMPRESSIBLE_RATIO ? STORED_LEVEL : COMPRESSED_LEVEL;
}

/** A gzip Transform that stores incompressible blocks instead of deflating them. */
export class BlockGzip extends Transform {
  readonly #deflate: DeflateRaw;
  #level = COMPRESSED_LEVEL;
  readonly #block = Buffer.allocUnsafe(COMPRESSION_BLOCK_BYTES);
  #filled = 0;
  #crc = 0;
  #size = 0;
  /** The block being handed to zlib: destroying zlib under a level switch would crash Node. */
  #busy: Promise<void> = Promise.resolve();

  constructor() {
    super({ highWaterMark: COMPRESSION_BLOCK_BYTES });
    this.#deflate = createDeflateRaw({ level: COMPRESSED_LEVEL, chunkSize: COMPRESSION_BLOCK_BYTES });
    this.#deflate.on('data', (chunk: Buffer) => this.push(chunk));
    this.#deflate.on('error', (error) => this.destroy(error));
    this.push(GZIP_HEADER);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#take(chunk).then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    const rest = this.#filled > 0 ? this.#writeBlock(this.#filled) : Promise.resolve();
    rest
      .then(
        () =>
          new Promise<void>((resolve, reject) => {
            this.#deflate.once('end', resolve);
            this.#deflate.once('error', reject);
            this.#deflate.end();
          }),
      )
      .then(() => {
        const trailer = Buffer.alloc(8);
        trailer.writeUInt32LE(this.#crc, 0);
        trailer.writeUInt32LE(this.#size % 2 ** 32, 4);
        callback(null, trailer);
      }, callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A write or a level switch in zlib's thread pool finishes first, then zlib is closed.
    void this.#busy.finally(() => {
      this.#deflate.destroy();
      callback(error);
    });
  }

  /** Copies `chunk` into the current block, writing out every block it fills. */
  async #take(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const copied = chunk.copy(this.#block, this.#filled, offset);
      this.#filled += copied;
      offset += copied;
      if (this.#filled === COMPRESSION_BLOCK_BYTES) await this.#writeBlock(COMPRESSION_BLOCK_BYTES);
    }
  }

  /** Compresses the first `length` bytes of the block at its level; resolves once zlib took them. */
  #writeBlock(length: number): Promise<void> {
    const writing = this.#compressBlock(length);
    this.#busy = writing.catch(() => {});
    return writing;
  }

  async #compressBlock(length: number): Promise<void> {
    if (this.destroyed) throw new Error('the archive compressor was closed');
    const block = this.#block.subarray(0, length);
    this.#crc = crc32(block, this.#crc);
    this.#size += length;
    const level = levelForBlock(block);
    if (level !== this.#level) {
      await new Promise<void>((resolve) =>
        this.#deflate.params(level, constants.Z_DEFAULT_STRATEGY, () => resolve()),
      );
      this.#level = level;
      if (this.destroyed) throw new Error('the archive compressor was closed');
    }
    // zlib reads the block before the callback, so the buffer can be refilled afterwards.
    await new Promise<void>((resolve, reject) =>
      this.#deflate.write(block, (error) => (error ? reject(error) : resolve())),
    );
    this.#filled = 0;
  }
}
