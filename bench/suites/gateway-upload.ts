// Gateway uploads: a CI upload of a .tar.gz through HTTP (multipart, streamed from disk), which
// the gateway hashes, gunzips, checks entry by entry and writes to its archive store while it
// arrives. Throughput, and the gateway's peak RSS: 20, 200 and 400 MiB archives, each in a
// fresh gateway process, show whether memory grows with the archive (it must not). Beside each
// upload, its floors on the identical file, measured before and after it in the same run with
// standard tools: validation (`sha256sum` + `tar -tzf`) and the canonical re-write
// (`gzip -dc | gzip -1 | sha256sum`). The upload does both, so its floor is the two one after the
// other (performance issue: "the same floor plus the re-write"); the ratio to validation alone,
// which does strictly less work than the upload, is printed beside it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { request } from 'undici';
import { writeArchive, type GeneratedArchive } from '../fixtures/archive.ts';
import { ChildServer } from '../lib/child.ts';
import { assertLoopback } from '../lib/load.ts';
import type { MemoryReading } from '../lib/memory.ts';
import type { SuiteResult } from '../lib/report.ts';
import { MiB, mib, round } from '../lib/stats.ts';
import type { SuiteOptions } from './suite.ts';

const SECRET = 'bench-upload-secret-8c41f0';
const SLUG = 'shop';
const SAMPLE_MS = 10;

interface Peaks {
  rssMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
  samples: number;
  maxRssMiB: number;
}

const run = promisify(execFile);

/** Seconds a shell pipeline takes on `file` (passed as $1). */
async function timeCommand(script: string, file: string): Promise<number> {
  const started = performance.now();
  await run('sh', ['-c', script, 'floor', file], { maxBuffer: 64 * MiB });
  return (performance.now() - started) / 1000;
}

const VALIDATE_FLOOR = 'sha256sum "$1" >/dev/null && tar -tzf "$1" >/dev/null';
const REWRITE_FLOOR = 'gzip -dc "$1" | gzip -1 -c | sha256sum >/dev/null';

interface UploadRun {
  label: string;
  /** MiB/s of the floors, each the mean of a run before and one after the upload. */
  validateFloor: number;
  rewriteFloor: number;
  /** MiB/s of validating and then re-writing: the upload's floor. */
  floor: number;
  archiveBytes: number;
  entries: number;
  seconds: number;
  mibPerSecond: number;
  status: number;
  baseline: MemoryReading;
  peaks: Peaks;
}

/** Streams `archive` as the `archive` field of a multipart upload; resolves with the answer. */
async function upload(
  origin: string,
  archive: GeneratedArchive,
  commit: string,
): Promise<{ status: number; body: string; seconds: number }> {
  assertLoopback(origin);
  const boundary = `----slipway-bench-${randomBytes(8).toString('hex')}`;
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    field('commit', commit) +
      field('branch', 'master') +
      field('comment', 'Upload benchmark') +
      `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="base.tar.gz"\r\n` +
      'Content-Type: application/gzip\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts() {
    yield head;
    for await (const chunk of createReadStream(archive.path, { highWaterMark: MiB })) yield chunk as Buffer;
    yield tail;
  }
  const started = performance.now();
  const res = await request(`${origin}/uploads/${SLUG}`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + archive.bytes + tail.length),
      authorization: `Bearer ${SECRET}`,
    },
    body: Readable.from(parts()),
  });
  const body = await res.body.text();
  return { status: res.statusCode, body, seconds: (performance.now() - started) / 1000 };
}

async function measureUpload(
  label: string,
  archive: GeneratedArchive,
  warmup: GeneratedArchive,
): Promise<Omit<UploadRun, 'validateFloor' | 'rewriteFloor' | 'floor'>> {
  // A fresh process per size: its peak cannot be inherited from an earlier, bigger upload.
  const gateway = await ChildServer.start<{ port: number }>('servers/gateway.ts', {
    BENCH_GATEWAY_MODE: 'memory',
    BENCH_SECRET: SECRET,
    BENCH_SLUG: SLUG,
  });
  try {
    const origin = `http://127.0.0.1:${gateway.ready.port}`;
    const first = await upload(origin, warmup, 'warmup');
    if (first.status !== 201) throw new Error(`warm-up upload answered ${first.status}: ${first.body}`);
    const baseline = await gateway.call<MemoryReading>('startSampling', SAMPLE_MS);
    const result = await upload(origin, archive, randomBytes(20).toString('hex'));
    const peaks = await gateway.call<Peaks>('stopSampling');
    if (result.status !== 201) throw new Error(`${label} upload answered ${result.status}: ${result.body}`);
    return {
      label,
      archiveBytes: archive.bytes,
      entries: archive.entries,
      seconds: result.seconds,
      mibPerSecond: archive.bytes / MiB / result.seconds,
      status: result.status,
      baseline,
      peaks,
    };
  } finally {
    await gateway.stop();
  }
}

export async function gatewayUploadSuite(options: SuiteOptions): Promise<SuiteResult> {
  // BENCH_UPLOAD_MIB=20,200,500 tries other sizes (at most the 512 MiB default limit).
  const sizes = process.env.BENCH_UPLOAD_MIB
    ? process.env.BENCH_UPLOAD_MIB.split(',').map(Number)
    : options.quick
      ? [5, 50]
      : [20, 200, 400];
  const dir = mkdtempSync(join(tmpdir(), 'slipway-bench-upload-'));
  try {
    const warmup = await writeArchive(join(dir, 'warmup.tar.gz'), 1 * MiB);
    const runs: UploadRun[] = [];
    for (const size of sizes) {
      const t0 = performance.now();
      const archive = await writeArchive(join(dir, `${size}.tar.gz`), size * MiB);
      options.log(`generated ${mib(archive.bytes)} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      // A/B/A: the floors before and after the upload, on the same file.
      const floors = async () => ({
        validate: await timeCommand(VALIDATE_FLOOR, archive.path),
        rewrite: await timeCommand(REWRITE_FLOOR, archive.path),
      });
      const before = await floors();
      const measured = await measureUpload(`${size} MiB`, archive, warmup);
      const after = await floors();
      const mibs = archive.bytes / MiB;
      const validateSeconds = (before.validate + after.validate) / 2;
      const rewriteSeconds = (before.rewrite + after.rewrite) / 2;
      const run = {
        ...measured,
        validateFloor: mibs / validateSeconds,
        rewriteFloor: mibs / rewriteSeconds,
        floor: mibs / (validateSeconds + rewriteSeconds),
      };
      rmSync(archive.path);
      runs.push(run);
      options.log(
        `${run.label}: ${run.mibPerSecond.toFixed(0)} MiB/s (floor ${run.floor.toFixed(0)} MiB/s, ratio ${(run.mibPerSecond / run.floor).toFixed(2)}; validation alone ${run.validateFloor.toFixed(0)} MiB/s, ratio ${(run.mibPerSecond / run.validateFloor).toFixed(2)}), peak RSS ${run.peaks.rssMiB} MiB (baseline ${run.baseline.rssMiB} MiB)`,
      );
    }
    const growth = (r: UploadRun) => round(r.peaks.rssMiB - r.baseline.rssMiB, 1);
    const steps = runs
      .slice(1)
      .map((r, i) => `${runs[i]!.label} → ${r.label}: ${growth(runs[i]!)} → ${growth(r)} MiB`);
    return {
      targets: runs.flatMap((r) => [
        { name: `${r.label}: MiB/s ÷ floor`, value: round(r.mibPerSecond / r.floor, 2), atLeast: 0.85 },
        { name: `${r.label}: peak RSS − idle (MiB)`, value: growth(r), atMost: 64 },
      ]),
      tables: [
        {
          title:
            'Upload through HTTP into the filesystem archive store (MiB; throughput = archive MiB / request seconds)',
          columns: [
            'archive',
            'entries',
            'seconds',
            'MiB/s',
            'floor',
            'ratio',
            'validate floor',
            'ratio to validate',
            're-write floor',
            'RSS before',
            'peak RSS',
            'peak − before',
            'peak heap',
            'max RSS (kernel)',
          ],
          rows: runs.map((r) => [
            `${mib(r.archiveBytes)} MiB`,
            r.entries,
            r.seconds,
            r.mibPerSecond,
            r.floor,
            round(r.mibPerSecond / r.floor, 2),
            r.validateFloor,
            round(r.mibPerSecond / r.validateFloor, 2),
            r.rewriteFloor,
            r.baseline.rssMiB,
            r.peaks.rssMiB,
            growth(r),
            r.peaks.heapUsedMiB,
            r.peaks.maxRssMiB,
          ]),
        },
      ],
      notes: [
        `peak RSS above the idle process, by archive size: ${steps.join('; ')}`,
        `RSS sampled every ${SAMPLE_MS} ms in the gateway process during the upload; "max RSS (kernel)" is ru_maxrss over the process lifetime (warm-up included)`,
        'each size runs in a fresh gateway process after a 1 MiB warm-up upload; the store fsyncs each archive before answering',
        `floors (MiB/s, mean of one run before and one after the upload, same file): validate = ${VALIDATE_FLOOR}; re-write = ${REWRITE_FLOOR}; floor = validate, then re-write (the work the upload does); ratio = upload ÷ floor; ratio to validate = upload ÷ validation alone`,
      ],
      data: {
        runs: runs.map((r) => ({
          archiveBytes: r.archiveBytes,
          entries: r.entries,
          seconds: round(r.seconds),
          mibPerSecond: round(r.mibPerSecond, 1),
          floorMibPerSecond: round(r.floor, 1),
          ratioToFloor: round(r.mibPerSecond / r.floor, 2),
          validateFloorMibPerSecond: round(r.validateFloor, 1),
          ratioToValidateFloor: round(r.mibPerSecond / r.validateFloor, 2),
          rewriteFloorMibPerSecond: round(r.rewriteFloor, 1),
          // Against `gzip -dc | gzip -1` alone, as measured before the block-wise re-write.
          ratioToRewriteFloor: round(r.mibPerSecond / r.rewriteFloor, 2),
          rssBeforeMiB: r.baseline.rssMiB,
          peakRssMiB: r.peaks.rssMiB,
          peakRssGrowthMiB: growth(r),
          peakHeapUsedMiB: r.peaks.heapUsedMiB,
          peakExternalMiB: r.peaks.externalMiB,
          kernelMaxRssMiB: r.peaks.maxRssMiB,
          rssSamples: r.peaks.samples,
        })),
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
