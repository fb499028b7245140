import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Who may import whom. Each process (operator, webhook gateway, status API, and the CLI) uses the
// shared layers below it, never another process's internals:
//   crds/      the API: kinds, their schemas, label names. Imports nothing of ours.
//   rules/     shared rules over the API (bundle order, new bundles, signed URLs, timelines…). Imports crds/.
//   lib/       shared runtime (Kubernetes client, informers, queue, leader election). Imports crds/, rules/.
//   providers/ one module per git provider, in one registry. Imports crds/, rules/, lib/.
const PROCESSES = ['operator', 'webhook-gateway', 'status-api', 'cli'];
/** One rule from [folders, why] pairs: an import from any of the folders is refused with its why. */
const forbidAll = (...groups) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: groups.flatMap(([folders, why]) =>
        folders.map((folder) => ({ group: [`**/${folder}/*`, `**/${folder}/**`], message: why })),
      ),
    },
  ],
});
const forbid = (folders, why) => forbidAll([folders, why]);
const processBoundary = (process) => [
  [...PROCESSES.filter((other) => other !== process), 'scripts', 'bench', 'test'],
  `${process}/ may not import another process's internals: put what they share in crds/ (the API), rules/ (shared rules), lib/ (runtime) or providers/.`,
];

// Inside the operator (docs/architecture.md, "Floors inside the operator"):
//   kinds      one folder per kind's controller (bundle/, preview/, promotion/, …)
//   sinks      what leaves the cluster (report/, notify/, subscribers/), run by the engine
//   subjects/  what sinks about one kind share (lanes, receipt books), above the engine
//   delivery/  the generic delivery engine: lanes, attempts, receipts; knows no kind and no sink
//   jobs/      Job manifests from settings; knows no controller
const KINDS = ['bundle', 'environment', 'preview', 'project', 'promotion', 'status-page', 'webhook'];
const SINKS = ['report', 'notify', 'subscribers'];
const operatorFloors = [
  {
    files: ['operator/delivery/**/*.ts'],
    also: [
      [...KINDS, ...SINKS, 'subjects', 'jobs'],
      'operator/delivery/ is the generic delivery engine: it imports no kind, sink or subject. Put what a sink needs about its kind in operator/subjects/ and give it to the sink, not the engine.',
    ],
  },
  {
    files: KINDS.map((kind) => `operator/${kind}/**/*.ts`),
    also: [
      [...SINKS, 'subjects'],
      "a kind's folder imports no sink: the sink listens to the kind, never the other way. Move what both need (a report target, a comment's wording) to providers/ or rules/.",
    ],
  },
  {
    files: ['operator/jobs/**/*.ts'],
    also: [
      [...KINDS, ...SINKS, 'subjects', 'delivery'],
      'operator/jobs/ builds Job manifests from settings and imports no controller: put a rule both need in rules/.',
    ],
  },
];

export const importBoundaries = [
  ...PROCESSES.map((process) => ({
    files: [`${process}/**/*.ts`],
    rules: forbidAll(processBoundary(process)),
  })),
  // (After the process rule: for these files this one rule holds both lists.)
  ...operatorFloors.map(({ files, also }) => ({
    files,
    rules: forbidAll(processBoundary('operator'), also),
  })),
  {
    files: ['lib/**/*.ts'],
    rules: forbid(
      [...PROCESSES, 'providers', 'scripts', 'bench', 'test'],
      'lib/ is shared by every process and depends on none of them.',
    ),
  },
  {
    files: ['providers/**/*.ts'],
    rules: forbid(
      [...PROCESSES, 'scripts', 'bench', 'test'],
      'providers/ is shared by the gateway, the CLI and the operator and depends on none of them.',
    ),
  },
  {
    files: ['rules/**/*.ts'],
    rules: forbid(
      [...PROCESSES, 'lib', 'providers', 'scripts', 'bench', 'test'],
      'rules/ holds pure rules over the API: it imports crds/ only.',
    ),
  },
  {
    files: ['crds/**/*.ts'],
    rules: forbid(
      [...PROCESSES, 'lib', 'rules', 'providers', 'scripts', 'bench', 'test'],
      'crds/ is the API every other folder builds on: it imports nothing of ours (no rules/ or lib/ either, or they form a cycle).',
    ),
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.slipway/**', 'bench/results/**', 'charts/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  ...importBoundaries,
);
