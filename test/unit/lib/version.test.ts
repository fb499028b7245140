// One version everywhere: the code's, package.json's and the chart's appVersion.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { SLIPWAY_VERSION } from '../../../lib/version.ts';

const read = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url)), 'utf8');

describe('the version', () => {
  it("is package.json's version and the chart's appVersion", () => {
    expect(SLIPWAY_VERSION).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect((JSON.parse(read('package.json')) as { version: string }).version).toBe(SLIPWAY_VERSION);
    expect((parse(read('charts/slipway/Chart.yaml')) as { appVersion: string }).appVersion).toBe(
      SLIPWAY_VERSION,
    );
  });
});
