import { describe, expect, it } from '@jest/globals';
import { registry } from '../../../lib/metrics.ts';
import { stepDuration, zeroKnownSeries } from '../../../operator/metrics.ts';

describe('bundle step durations', () => {
  it('have buckets up to a day, so an hour-long build lands in a bucket of its own', async () => {
    stepDuration.observe({ step: 'build', outcome: 'succeeded' }, 3000);
    const text = await registry.metrics();
    expect(text).toContain(
      'slipway_operator_step_duration_seconds_bucket{le="1800",step="build",outcome="succeeded"} 0',
    );
    expect(text).toContain(
      'slipway_operator_step_duration_seconds_bucket{le="3600",step="build",outcome="succeeded"} 1',
    );
    expect(text).toContain(
      'slipway_operator_step_duration_seconds_bucket{le="86400",step="build",outcome="succeeded"} 1',
    );
  });
});

describe('the series alerts read', () => {
  it('start at 0 for every step, outcome, provider, notification type and result, so increase() counts the first', async () => {
    zeroKnownSeries();
    const text = await registry.metrics();
    expect(text).toContain('slipway_operator_steps_total{step="build",outcome="failed"} 0');
    expect(text).toContain('slipway_operator_status_webhooks_total{result="failed"} 0');
    expect(text).toContain('slipway_operator_reports_total{provider="gitea",result="refused"} 0');
    expect(text).toContain('slipway_operator_notifications_total{type="slack",result="failed"} 0');
  });
});
