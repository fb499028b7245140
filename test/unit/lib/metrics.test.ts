import { describe, expect, it } from '@jest/globals';
import { registry } from '../../../lib/metrics.ts';

describe('process metrics', () => {
  it('keep their standard names, so stock dashboards find them', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes /m);
    expect(text).not.toContain('slipway_process_');
    expect(text).not.toContain('slipway_nodejs_');
  });
});
