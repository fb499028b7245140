// Memory readings. RSS is what the kernel charges the process (what a container limit sees);
// the heap numbers say how much of it is live JavaScript.
import { readFileSync } from 'node:fs';
import { mib } from './stats.ts';

export interface MemoryReading {
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
}

export function memoryReading(): MemoryReading {
  const m = process.memoryUsage();
  return {
    rssMiB: mib(m.rss),
    heapUsedMiB: mib(m.heapUsed),
    heapTotalMiB: mib(m.heapTotal),
    externalMiB: mib(m.external),
    arrayBuffersMiB: mib(m.arrayBuffers),
  };
}

/** A full collection first (the child runs with --expose-gc), so the heap shows live data only. */
export function settledMemory(): MemoryReading {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return memoryReading();
}

/** Samples process.memoryUsage() on a timer and keeps the peaks since the last reset. */
export class PeakSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakRss = 0;
  private peakHeap = 0;
  private peakExternal = 0;
  private samples = 0;

  start(intervalMs: number): this {
    this.timer = setInterval(() => this.sample(), intervalMs);
    return this;
  }

  sample(): void {
    const m = process.memoryUsage();
    this.peakRss = Math.max(this.peakRss, m.rss);
    this.peakHeap = Math.max(this.peakHeap, m.heapUsed);
    this.peakExternal = Math.max(this.peakExternal, m.external);
    this.samples += 1;
  }

  reset(): void {
    this.peakRss = this.peakHeap = this.peakExternal = this.samples = 0;
    this.sample();
  }

  peaks(): { rssMiB: number; heapUsedMiB: number; externalMiB: number; samples: number } {
    this.sample();
    return {
      rssMiB: mib(this.peakRss),
      heapUsedMiB: mib(this.peakHeap),
      externalMiB: mib(this.peakExternal),
      samples: this.samples,
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** RSS of another process, in MiB, from /proc (Linux); undefined elsewhere or once it is gone. */
export function rssOfPid(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : mib(Number(kb) * 1024);
  } catch {
    return undefined;
  }
}
