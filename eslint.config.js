import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Who may import whom. Each process (operator, webhook gateway, status API, and the CLI) uses the
// shared layers below it, never another process's internals:
//   crds/      the API: kinds, their schemas, label names. Imports nothing of ours.
//   rules/     shared rules over the API (bundle order, new bundles, signed URLs, timelines…). Imports crds/.
//   lib/       shared runtime (Kubernetes client, informers, queue, leader election). Imports crds/, rules/.
//   providers/ one module per git provider, in one registry. Imports crds/, rules/, lib/.
const PROCESSES = ['operator', 'webhook-gateway', 'status-api', 'cli'];
const forbid = (folders, why) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: folders.map((folder) => ({
        group: [`**/${folder}/*`, `**/${folder}/**`],
        message: why,
      })),
    },
  ],
});

export const importBoundaries = [
  ...PROCESSES.map((process) => ({
    files: [`${process}/**/*.ts`],
    rules: forbid(
      [...PROCESSES.filter((other) => other !== process), 'scripts', 'bench', 'test'],
      `${process}/ may not import another process's internals: put what they share in crds/ (the API), rules/ (shared rules), lib/ (runtime) or providers/.`,
    ),
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
