// What every suite gets from the runner.
import type { BenchCluster } from '../lib/cluster.ts';
import type { SuiteResult } from '../lib/report.ts';

export interface SuiteOptions {
  /** Shorter runs, for checking that the benchmark works rather than for numbers. */
  quick: boolean;
  /** The shared control plane, started on first use. */
  cluster: () => Promise<BenchCluster>;
  /** Progress on stderr, so stdout stays the report. */
  log: (message: string) => void;
}

export interface Suite {
  name: string;
  description: string;
  run: (options: SuiteOptions) => Promise<SuiteResult>;
}
