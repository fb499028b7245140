// The alerts and the dashboard as Prometheus and Grafana take them: promtool (from Debian's
// prometheus package, scripts/prometheus/promtool.sh) checks the rules and runs their unit tests
// (alerts.promtool.yaml); the chart renders exactly these files, only when asked.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { CHART, HELM_BUILD_TIMEOUT_MS, ROOT, ofKind, template } from './helm.ts';

const RULES = join(CHART, 'alerts', 'slipway.rules.yaml');
const DASHBOARD = join(CHART, 'dashboards', 'slipway.json');

let promtoolPath: string | undefined;
function promtool(...args: string[]) {
  promtoolPath ??= execFileSync(join(ROOT, 'scripts', 'prometheus', 'promtool.sh'), {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return spawnSync(promtoolPath, args, { encoding: 'utf8', cwd: ROOT });
}

describe('alerts and dashboard', () => {
  it('promtool checks the rules: seven alerts, each expression valid', () => {
    const run = promtool('check', 'rules', RULES);
    expect(run.stdout + run.stderr).toContain('SUCCESS: 7 rules found');
    expect(run.status).toBe(0);
  });

  it("promtool's unit tests of the rules pass: each alert fires when it should, and only then", () => {
    const run = promtool('test', 'rules', join('test', 'unit', 'chart', 'alerts.promtool.yaml'));
    expect(run.stdout + run.stderr).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it(
    'the chart renders them only when asked: a PrometheusRule of the rules, a ConfigMap the Grafana sidecar loads',
    () => {
      expect(ofKind(template(), 'PrometheusRule')).toEqual([]);
      const manifests = template({ 'prometheusRule.enabled': true, 'grafanaDashboard.enabled': true });
      const [rule] = ofKind(manifests, 'PrometheusRule');
      expect(rule!.spec).toEqual(parse(readFileSync(RULES, 'utf8')));
      const dashboards = ofKind(manifests, 'ConfigMap').filter(
        (m) => m.metadata.labels?.grafana_dashboard === '1',
      );
      expect(dashboards).toHaveLength(1);
      expect((dashboards[0] as unknown as { data: Record<string, string> }).data['slipway.json']).toBe(
        readFileSync(DASHBOARD, 'utf8'),
      );
    },
    HELM_BUILD_TIMEOUT_MS,
  );
});
