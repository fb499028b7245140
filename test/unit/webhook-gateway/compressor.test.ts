import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import {
  BlockGzip,
  COMPRESSION_BLOCK_BYTES,
  levelForBlock,
} from '../../../webhook-gateway/archive/compressor.ts';

const MiB = 1024 * 1024;
const TEXT = Buffer.from('<?php\nreturn ["name" => "shop", "debug" => false];\n'.repeat(30_000));

/** Compresses `input`, handed to the stage in chunks of `chunkBytes`. */
async function compress(input: Buffer, chunkBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < input.length; offset += chunkBytes)
    chunks.push(input.subarray(offset, offset + chunkBytes));
  const stage = new BlockGzip();
  const output = buffer(stage);
  await pipeline(Readable.from(chunks), stage);
  return output;
}

describe('the canonical archive gzip stage', () => {
  it('writes gzip that zlib and GNU gzip read back byte for byte, text and noise mixed', async () => {
    const input = Buffer.concat([TEXT, randomBytes(3 * MiB + 123), TEXT.subarray(0, 70_001)]);
    const gz = await compress(input, 64 * 1024);
    expect(gunzipSync(gz).equals(input)).toBe(true);
    const viaGnuGzip = execFileSync('gzip', ['-dc'], { input: gz, maxBuffer: 64 * MiB });
    expect(createHash('sha256').update(viaGnuGzip).digest('hex')).toBe(
      createHash('sha256').update(input).digest('hex'),
    );
  });

  it('stores noise at its own size and still compresses text', async () => {
    const noise = randomBytes(4 * MiB);
    const storedNoise = await compress(noise, 64 * 1024);
    expect(storedNoise.length).toBeGreaterThanOrEqual(noise.length);
    expect(storedNoise.length).toBeLessThan(noise.length * 1.001);
    const text = await compress(TEXT, 64 * 1024);
    expect(text.length).toBeLessThan(TEXT.length * 0.1);
  });

  it('writes the same bytes however the input was cut into chunks', async () => {
    const input = Buffer.concat([randomBytes(MiB), TEXT, randomBytes(MiB + 7)]);
    const whole = await compress(input, input.length);
    for (const chunkBytes of [4097, COMPRESSION_BLOCK_BYTES, 300 * 1024]) {
      expect((await compress(input, chunkBytes)).equals(whole)).toBe(true);
    }
  });

  it('can be destroyed at any moment, level switches included, without failing the process', async () => {
    const noise = randomBytes(COMPRESSION_BLOCK_BYTES);
    const text = TEXT.subarray(0, COMPRESSION_BLOCK_BYTES);
    for (let ticks = 0; ticks < 12; ticks++) {
      const stage = new BlockGzip();
      stage.resume();
      stage.on('error', () => {});
      // Noise then text: each block after the first switches the level.
      for (let i = 0; i < 6; i++) stage.write(i % 2 ? text : noise);
      for (let t = 0; t < ticks; t++) await new Promise((resolve) => setImmediate(resolve));
      const closed = new Promise((resolve) => stage.once('close', resolve));
      stage.destroy(new Error('the client broke off the upload'));
      await closed;
    }
    // Still usable afterwards: nothing was left half-closed in zlib.
    const input = Buffer.concat([noise, text]);
    expect(gunzipSync(await compress(input, 100_000)).equals(input)).toBe(true);
  });

  it('writes a valid empty gzip for no input', async () => {
    const gz = await compress(Buffer.alloc(0), 1);
    expect(gunzipSync(gz).length).toBe(0);
  });

  it('decides per block from a sample: noise is stored, text and short blocks are compressed', () => {
    expect(levelForBlock(randomBytes(COMPRESSION_BLOCK_BYTES))).toBe(0);
    expect(levelForBlock(TEXT.subarray(0, COMPRESSION_BLOCK_BYTES))).toBe(1);
    expect(levelForBlock(randomBytes(1000))).toBe(1);
  });
});
