import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Who may import whom. Each process (operator, webhook gateway, status API, and the CLI) uses crds/ (the API:
// kinds and the contracts the processes share) and lib/ (shared runtime), never another
// process's internals; lib/ builds on crds/, and crds/ on nothing of ours.
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
      `${process}/ may not import another process's internals: put what they share in crds/ (contracts) or lib/ (runtime).`,
    ),
  })),
  {
    files: ['lib/**/*.ts'],
    rules: forbid(
      [...PROCESSES, 'scripts', 'bench', 'test'],
      'lib/ is shared by every process and depends on none of them.',
    ),
  },
  {
    files: ['crds/**/*.ts'],
    rules: forbid(
      [...PROCESSES, 'lib', 'scripts', 'bench', 'test'],
      'crds/ is the API every other folder builds on: it imports nothing of ours (no lib/ either, or the two form a cycle).',
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
