// `npm run bench [-- <suite>…] [--quick] [--keep-cluster]`: runs the benchmark suites, prints one
// table per measurement and writes bench/results/latest.json. Suites: status, gateway-verify,
// gateway-deliveries, gateway-upload, kube-client, operator, delivery-engine, e2e (root: the real node); `gateway` picks the three gateway suites; no
// name runs them all (e2e only as root). Timing assertions never go in tests: numbers are recorded here instead.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchCluster, releaseCluster } from './lib/cluster.ts';
import { met, renderSuite, renderTable, targetsTable, type SuiteResult, type Target } from './lib/report.ts';
import { mib } from './lib/stats.ts';
import { deliveryEngineSuite } from './suites/delivery-engine.ts';
import { e2eSuite } from './suites/e2e.ts';
import { gatewayDeliveriesSuite } from './suites/gateway-deliveries.ts';
import { gatewayUploadSuite } from './suites/gateway-upload.ts';
import { gatewayVerifySuite } from './suites/gateway-verify.ts';
import { kubeClientSuite } from './suites/kube-client.ts';
import { operatorSuite } from './suites/operator.ts';
import { statusApiSuite } from './suites/status-api.ts';
import type { Suite, SuiteOptions } from './suites/suite.ts';

const SUITES: Suite[] = [
  { name: 'status', description: 'status API: requests/s, latency, memory', run: statusApiSuite },
  {
    name: 'gateway-verify',
    description: 'gateway: signature check + parse, in-process',
    run: gatewayVerifySuite,
  },
  {
    name: 'gateway-deliveries',
    description: 'gateway: deliveries → Bundles on a real API server',
    run: gatewayDeliveriesSuite,
  },
  {
    name: 'gateway-upload',
    description: 'gateway: 20, 200 and 400 MiB uploads, throughput and peak RSS',
    run: gatewayUploadSuite,
  },
  {
    name: 'kube-client',
    description: 'Kubernetes client as wired vs one shared pool: calls/s, CPU, RSS, sockets',
    run: kubeClientSuite,
  },
  {
    name: 'operator',
    description: 'operator: bundle → Job → Deployment latency, RSS with 5,000 bundles',
    run: operatorSuite,
  },
  {
    name: 'delivery-engine',
    description:
      'operator: deliveries/s through the delivery engine vs a plain fetch loop; fairness under 429s',
    run: deliveryEngineSuite,
  },
  {
    name: 'e2e',
    description: 'real node (root): push → page served, cold and warm, 10 projects at once',
    run: e2eSuite,
  },
];
const GROUPS: Record<string, string[]> = {
  gateway: ['gateway-verify', 'gateway-deliveries', 'gateway-upload'],
};

const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

function usage(): string {
  return [
    'usage: npm run bench -- [suite…] [--quick] [--keep-cluster]',
    ...SUITES.map((s) => `  ${s.name.padEnd(20)} ${s.description}`),
    `  ${'gateway'.padEnd(20)} the three gateway suites`,
  ].join('\n');
}

function parseArgs(argv: string[]): { suites: Suite[]; quick: boolean; keepCluster: boolean } {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  for (const flag of flags) {
    if (!['--quick', '--keep-cluster', '--help'].includes(flag))
      throw new Error(`unknown option ${flag}\n${usage()}`);
  }
  if (flags.has('--help')) {
    console.log(usage());
    process.exit(0);
  }
  const names = argv.filter((a) => !a.startsWith('--')).flatMap((n) => GROUPS[n] ?? [n]);
  for (const name of names) {
    if (!SUITES.some((s) => s.name === name)) throw new Error(`unknown suite ${name}\n${usage()}`);
  }
  // With no name, every suite: the real-node one only as root on Linux (it needs both).
  const realNodeOk = process.platform === 'linux' && process.getuid?.() === 0;
  const suites =
    names.length === 0
      ? SUITES.filter((s) => s.name !== 'e2e' || realNodeOk)
      : SUITES.filter((s) => names.includes(s.name));
  return { suites, quick: flags.has('--quick'), keepCluster: flags.has('--keep-cluster') };
}

async function main(): Promise<void> {
  const { suites, quick, keepCluster } = parseArgs(process.argv.slice(2));
  const cpuList = cpus();
  const machine = {
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    memoryMiB: mib(totalmem()),
    freeMemoryMiB: mib(freemem()),
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
  console.log(
    `Slipway benchmarks: ${suites.map((s) => s.name).join(', ')}${quick ? ' (quick)' : ''}\n` +
      `machine: ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, load average ${machine.loadAverageAtStart.join(' ')}`,
  );

  const started = new Date();
  const results: Record<string, unknown> = {};
  const targets: Array<Target & { suite: string }> = [];
  const failed: string[] = [];
  try {
    for (const suite of suites) {
      const options: SuiteOptions = {
        quick,
        cluster: benchCluster,
        log: (message) => process.stderr.write(`[${suite.name}] ${message}\n`),
      };
      const t0 = performance.now();
      let result: SuiteResult;
      try {
        result = await suite.run(options);
      } catch (error) {
        failed.push(suite.name);
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        console.log(`\n== ${suite.name} FAILED ==\n  ${message}`);
        results[suite.name] = { error: message };
        continue;
      }
      const seconds = (performance.now() - t0) / 1000;
      console.log(renderSuite(suite.name, result, seconds));
      for (const t of result.targets ?? []) targets.push({ suite: suite.name, ...t });
      results[suite.name] = {
        seconds: Math.round(seconds * 10) / 10,
        ...(result.targets ? { targets: result.targets.map((t) => ({ ...t, met: met(t) })) } : {}),
        ...result.data,
        ...(result.notes ? { notes: result.notes } : {}),
      };
    }
  } finally {
    await releaseCluster(keepCluster);
  }

  const loadAverageAtEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  if (targets.length > 0)
    console.log(
      `\n${renderTable(targetsTable(targets))}\n  load average at the end: ${loadAverageAtEnd.join(' ')}`,
    );
  const report = {
    machine: { ...machine, loadAverageAtEnd },
    targets: targets.map((t) => ({ ...t, met: met(t) })),
    date: started.toISOString(),
    durationSeconds: Math.round((Date.now() - started.getTime()) / 100) / 10,
    quick,
    suites: results,
  };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const json = JSON.stringify(report, null, 2) + '\n';
  writeFileSync(`${RESULTS_DIR}latest.json`, json);
  writeFileSync(`${RESULTS_DIR}${started.toISOString().replace(/[:.]/g, '-')}.json`, json);
  console.log(`\nwrote bench/results/latest.json (${report.durationSeconds} s in all)`);
  if (failed.length > 0) {
    console.log(`failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

// Node ends a process whose event loop has emptied, even while main() still awaits: a suite
// waiting on something nothing can settle any more would end the run silently, with status 0.
let finished = false;
process.on('exit', () => {
  if (finished) return;
  console.error(
    'the benchmarks stopped before their report: a suite was waiting on something that can no longer happen',
  );
  process.exitCode = 1;
});

main()
  .then(() => {
    finished = true;
  })
  .catch((error: unknown) => {
    finished = true;
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
