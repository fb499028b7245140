// Streams an uploaded .tar.gz once: every chunk is counted, hashed and handed to the caller (who
// writes it to disk) while a gunzip + tar parser checks the content. Memory does not grow with the
// archive: chunks flow through with backpressure and only links are remembered (see entry-policy).
import { createHash } from 'node:crypto';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tarStream from 'tar-stream';
import type { ArchiveLimits } from './archive-limits.ts';
import { ArchiveEntryPolicy, type EntryHeader } from './entry-policy.ts';
import { ArchiveError } from './errors.ts';

export interface ArchiveDigest {
  sha256: string;
  sizeBytes: number;
  entries: number;
}

/**
 * Reads `source` to its end, passing each chunk to `write` (awaited, so a slow disk slows the
 * upload down), and resolves with the archive's digest once the content passed every check.
 * Rejects with ArchiveError for a refused archive, or with the source's own error when the
 * upload broke off.
 */
export async function validateArchive(
  source: Readable,
  write: (chunk: Buffer) => Promise<void>,
  limits: ArchiveLimits,
): Promise<ArchiveDigest> {
  const hash = createHash('sha256');
  const policy = new ArchiveEntryPolicy(limits);
  let compressed = 0;
  let uncompressed = 0;

  const intake = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      compressed += chunk.length;
      if (compressed > limits.maxArchiveBytes) {
        callback(
          new ArchiveError('archive_too_large', `the archive is larger than ${limits.maxArchiveBytes} bytes`),
        );
        return;
      }
      hash.update(chunk);
      write(chunk).then(() => callback(null, chunk), callback);
    },
  });

  const unpacked = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      uncompressed += chunk.length;
      if (uncompressed > limits.maxUncompressedBytes) {
        callback(
          new ArchiveError(
            'uncompressed_too_large',
            `the archive unpacks to more than ${limits.maxUncompressedBytes} bytes`,
          ),
        );
      } else if (
        uncompressed > limits.compressionRatioGraceBytes &&
        uncompressed > compressed * limits.maxCompressionRatio
      ) {
        callback(
          new ArchiveError(
            'compression_ratio',
            `the archive unpacks to more than ${limits.maxCompressionRatio} times its size; refusing a likely decompression bomb`,
          ),
        );
      } else {
        callback(null, chunk);
      }
    },
  });

  try {
    await pipeline(source, intake, createGunzip(), unpacked, new TarEntries(policy));
  } catch (error) {
    throw classify(error);
  }
  policy.finish();
  return { sha256: hash.digest('hex'), sizeBytes: compressed, entries: policy.entries };
}

function classify(error: unknown): unknown {
  if (error instanceof ArchiveError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('Z_')) {
    const detail = (error as Error).message;
    return new ArchiveError('invalid_gzip', `the archive is not valid gzip (${detail}); upload a .tar.gz`);
  }
  return error;
}

/** A node Writable that feeds tar-stream's extractor and checks each entry header. */
class TarEntries extends Writable {
  readonly #extract = tarStream.extract();
  readonly #done: Promise<void>;

  constructor(policy: ArchiveEntryPolicy) {
    super();
    this.#done = new Promise<void>((resolve, reject) => {
      this.#extract.on('finish', resolve);
      this.#extract.on('error', (error: Error) => {
        const failure = error instanceof ArchiveError ? error : invalidTar(error);
        reject(failure);
        this.destroy(failure);
      });
    });
    this.#done.catch(() => {}); // observed through destroy() or _final()

    this.#extract.on('entry', (header: EntryHeader, stream, next) => {
      stream.on('error', () => {}); // the extractor reports the same failure
      try {
        // tar-stream applies a pax global header only to entries with a pax header of their
        // own; GNU tar applies it to every later entry. The two would read different names, so
        // the checks could pass a name that tar then writes elsewhere: refuse global headers.
        if ((this.#extract as unknown as { _paxGlobal: unknown })._paxGlobal) {
          throw new ArchiveError('unsupported_entry', 'pax global headers are not supported');
        }
        policy.check(header);
      } catch (error) {
        this.#extract.destroy(error as Error);
        return;
      }
      stream.on('end', () => next(null));
      stream.resume();
    });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#extract.write(chunk)) callback();
    else this.#extract.once('drain', () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#extract.end(undefined);
    this.#done.then(
      () => callback(),
      (error: Error) => callback(error),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#extract.destroyed) this.#extract.destroy(error ?? undefined);
    callback(error);
  }
}

function invalidTar(error: Error): ArchiveError {
  return new ArchiveError('invalid_tar', `the archive is not a valid tar file (${error.message})`);
}
