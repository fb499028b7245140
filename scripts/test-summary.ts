// Prints one closing line for the whole test command from the tiers' jest JSON reports:
// "tests: N passed, M failed" — what CI reads to know tests really ran.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const reports = ['unit', 'integration', 'e2e'].map((tier) =>
  join(import.meta.dirname, '..', '.slipway', `jest-${tier}.json`),
);
let passed = 0;
let failed = 0;
for (const file of reports) {
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8')) as { numPassedTests: number; numFailedTests: number };
  passed += report.numPassedTests;
  failed += report.numFailedTests;
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
