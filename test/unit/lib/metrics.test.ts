import { describe, expect, it } from '@jest/globals';
import { registry } from '../../../lib/metrics.ts';
import { SLIPWAY_VERSION } from '../../../lib/version.ts';

describe('process metrics', () => {
  it('keep their standard names, so stock dashboards find them', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(text).not.toContain('slipway_process_');
    expect(text).not.toContain('slipway_nodejs_');
  });

  it('say which release runs: slipway_build_info{version, node_version} 1', async () => {
    const text = await registry.metrics();
    expect(text).toContain(
      `slipway_build_info{version="${SLIPWAY_VERSION}",node_version="${process.version}"} 1`,
    );
  });
});
