// Operator, as its own process against the bench control plane (kwok completes Job pods and
// readies Deployment pods): latency of the bundle chain (operator-latency.ts) and memory with
// 5,000 bundles (operator-memory.ts).
import type { SuiteResult, Table } from '../lib/report.ts';
import { median, round, roundAll, type LatencySummary } from '../lib/stats.ts';
import { latencyPhase, type LatencyPhase } from './operator-latency.ts';
import { memoryPhase, SETTLE_MS, type MemoryReading } from './operator-memory.ts';
import type { SuiteOptions } from './suite.ts';

function latencyRows(pass: string, l: LatencyPhase): Array<Array<string | number>> {
  const row = (label: string, x: LatencySummary) => [pass, label, x.count, x.p50, x.p90, x.p99, x.max];
  return [
    row('bundle created → build Job created', l.createdToJob),
    row('build Job complete → Deployment patched', l.jobCompleteToPatched),
    row('bundle created → Ready (whole chain)', l.createdToFinished),
  ];
}

function latencyData(l: LatencyPhase) {
  return {
    bundles: l.bundles,
    lanes: l.lanes,
    seconds: round(l.seconds, 1),
    deployedPerSecond: round(l.bundles / l.seconds, 2),
    phases: l.phases,
    createdToBuildJobMs: roundAll(l.createdToJob),
    buildJobCompleteToDeploymentPatchedMs: roundAll(l.jobCompleteToPatched),
    createdToReadyMs: roundAll(l.createdToFinished),
    rssMiB: l.rss,
  };
}

const describePhases = (l: LatencyPhase) =>
  Object.entries(l.phases)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');

function memoryRow(label: string, m: MemoryReading): Array<string | number> {
  return [label, m.rssMiB, m.heapUsedMiB, m.heapTotalMiB, m.externalMiB];
}

export async function operatorSuite(options: SuiteOptions): Promise<SuiteResult> {
  const bench = await options.cluster();
  const env = (name: string, normal: number, quick: number) =>
    Number(process.env[name] ?? (options.quick ? quick : normal));
  const sequentialCount = env('BENCH_OPERATOR_SEQUENTIAL_BUNDLES', 50, 10);
  const parallelCount = env('BENCH_OPERATOR_LATENCY_BUNDLES', 200, 20);
  const lanes = env('BENCH_OPERATOR_LANES', 10, 4);
  const bulk = env('BENCH_OPERATOR_BUNDLES', 5000, 500);

  // One environment: each bundle has the operator to itself. Then ten environments of one
  // project at once: the same steps with contention for workers, the project's build slots and the API.
  const sequential = await latencyPhase(bench, options, sequentialCount, 1);
  options.log(`latency: ${sequential.bundles} bundles, one at a time, in ${sequential.seconds.toFixed(0)} s`);
  const parallel = await latencyPhase(bench, options, parallelCount, lanes);
  options.log(`latency: ${parallel.bundles} bundles in ${lanes} lanes in ${parallel.seconds.toFixed(0)} s`);
  // The same across two shards (docs/helm.md#sharding): two projects, an operator process each.
  const sharded = await latencyPhase(bench, options, parallelCount, lanes, true);
  options.log(
    `latency: ${sharded.bundles} bundles in ${lanes} lanes, 2 shards, in ${sharded.seconds.toFixed(0)} s`,
  );
  const memory = await memoryPhase(bench, options, bulk);

  const tables: Table[] = [
    {
      title:
        'Webhook bundles that deploy, one project; a lane creates its next bundle when the previous is Ready ' +
        '(ms between watch events)',
      columns: ['lanes', 'interval', 'bundles', 'p50', 'p90', 'p99', 'max'],
      rows: [
        ...latencyRows('1 env', sequential),
        ...latencyRows(`${lanes} envs`, parallel),
        ...latencyRows(`${lanes} envs, 2 shards`, sharded),
      ],
    },
    {
      title: `Operator memory (MiB; heap figures from its own /metrics)`,
      columns: ['when', 'RSS', 'heap used', 'heap total', 'external'],
      rows: [
        memoryRow('empty namespace, ready', memory.empty),
        memoryRow(`${memory.bundles} bundles + Jobs, ready (listed)`, memory.ready),
        memoryRow(`… ${SETTLE_MS / 1000} s later (each bundle looked at)`, memory.settled),
        [`… peak RSS over those ${SETTLE_MS / 1000} s`, memory.peakRssMiB, '', '', ''],
        [`${lanes}-lane latency run: ready`, parallel.rss.ready, '', '', ''],
        [`${lanes}-lane latency run: peak / end`, `${parallel.rss.peak} / ${parallel.rss.end}`, '', '', ''],
      ],
    },
  ];
  return {
    targets: [
      {
        name: `${lanes} envs × ${parallel.bundles / lanes} bundles: created → build Job p99 (ms)`,
        value: round(parallel.createdToJob.p99, 0),
        atMost: 300,
      },
      {
        name: `${lanes} envs × ${sharded.bundles / lanes} bundles, 2 shards: created → build Job p99 (ms)`,
        value: round(sharded.createdToJob.p99, 0),
        atMost: 300,
      },
      {
        name: `${memory.bundles} finished bundles + Jobs: peak RSS, ready and 15 s after (MiB)`,
        value: round(Math.max(memory.peakRssMiB, memory.ready.rssMiB), 1),
        atMost: 250,
      },
      {
        name: `${memory.bundles} finished bundles + Jobs: spawn → ready, new pod, median of 3 (s)`,
        value: round(median(memory.coldStarts), 1),
        atMost: 3,
      },
      {
        name: `${memory.bundles} finished bundles + Jobs: spawn → ready, restarted, median of 3 (s)`,
        value: round(median(memory.warmStarts), 1),
        atMost: 3,
      },
    ],
    tables,
    notes: [
      `1 env: ${describePhases(sequential)} in ${sequential.seconds.toFixed(0)} s; ${lanes} envs: ${describePhases(parallel)} in ${parallel.seconds.toFixed(0)} s (${(parallel.bundles / parallel.seconds).toFixed(1)} deployed bundles/s); ${lanes} envs in 2 shards (two projects, every other lane, an operator process per shard, --watch-label-selector): ${describePhases(sharded)} in ${sharded.seconds.toFixed(0)} s`,
      `memory run: ${memory.bundles} finished bundles in ${memory.projects} projects, each with its build Job (created suspended: no pods), set up in ${memory.createSeconds.toFixed(0)} s; the operator was ready ${seconds(memory.coldStarts)} s after it was spawned with an empty compile cache (a new pod), ${seconds(memory.warmStarts)} s with the code compiled then (a restarted container), three pairs in that order`,
      'the operator runs as its own process (operator/main.ts, 4 workers); RSS from /proc/<pid>/status',
    ],
    data: {
      latencyOneEnvironment: latencyData(sequential),
      latencyLanes: latencyData(parallel),
      latencyLanesTwoShards: latencyData(sharded),
      memory: {
        bundles: memory.bundles,
        jobs: memory.bundles,
        projects: memory.projects,
        setupSeconds: round(memory.createSeconds, 1),
        startToReadySeconds: round(median(memory.warmStarts), 1),
        coldStartToReadySeconds: round(median(memory.coldStarts), 1),
        startsToReadySeconds: memory.warmStarts.map((v) => round(v, 2)),
        coldStartsToReadySeconds: memory.coldStarts.map((v) => round(v, 2)),
        emptyMiB: memory.empty,
        readyMiB: memory.ready,
        settledMiB: memory.settled,
        peakRssMiB: memory.peakRssMiB,
      },
    },
  };
}

const seconds = (values: number[]) => values.map((v) => v.toFixed(1)).join(', ');
