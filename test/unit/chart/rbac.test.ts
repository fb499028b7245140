// Least privilege, checked rule by rule: each process gets exactly the permissions it uses,
// cluster-wide by default and confined to one namespace when the chart is told to watch one.
// The expected lists are the processes' own: operator/rbac.ts, webhook-gateway/rbac.ts and
// status-api/rbac.ts, from which the chart's rules are generated.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  buildNamespaceRules,
  clusterRangeRules,
  leaderElectionRules,
  operatorRules,
} from '../../../operator/rbac.ts';
import { statusApiRules } from '../../../status-api/rbac.ts';
import { gatewayBuildNamespaceRules, gatewayRules } from '../../../webhook-gateway/rbac.ts';
import {
  HELM_BUILD_TIMEOUT_MS,
  NAMESPACE,
  RELEASE,
  CHART,
  ROOT,
  componentName,
  helm,
  run,
  setArgs,
  template,
  type Manifest,
} from './helm.ts';

type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[] };
type Role = Manifest & { rules: Rule[] };
type Binding = Manifest & {
  roleRef: { kind: string; name: string };
  subjects: { kind: string; name: string; namespace: string }[];
};

/** "group/resource verb" for every permission a rule grants ("" is the core group). */
function grants(rules: readonly Rule[]): string[] {
  return rules
    .flatMap((r) =>
      (r.apiGroups ?? []).flatMap((g) =>
        (r.resources ?? []).flatMap((res) => r.verbs.map((v) => `${g || 'core'}/${res} ${v}`)),
      ),
    )
    .sort();
}

const EXPECTED = {
  operator: grants(operatorRules),
  operatorClusterRanges: grants(clusterRangeRules),
  operatorLeaderElection: grants(leaderElectionRules),
  operatorBuilds: grants(buildNamespaceRules),
  gateway: grants(gatewayRules),
  gatewayBuilds: grants(gatewayBuildNamespaceRules),
  statusApi: grants(statusApiRules),
};

function rbac(manifests: Manifest[]) {
  const roles = manifests.filter((m): m is Role => m.kind === 'Role' || m.kind === 'ClusterRole');
  const bindings = manifests.filter(
    (m): m is Binding => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding',
  );
  /** Everything a ServiceAccount of the release can do, as "Kind[namespace] grant" lines. */
  function of(component: 'operator' | 'gateway' | 'status-api') {
    const account = componentName(component);
    const bound = bindings.filter((b) =>
      b.subjects.some((s) => s.kind === 'ServiceAccount' && s.name === account && s.namespace === NAMESPACE),
    );
    return bound.map((b) => {
      const role = roles.find(
        (r) =>
          r.kind === b.roleRef.kind &&
          r.metadata.name === b.roleRef.name &&
          (r.kind === 'ClusterRole' || r.metadata.namespace === b.metadata.namespace),
      );
      if (!role) throw new Error(`${b.kind}/${b.metadata.name} refers to a missing ${b.roleRef.kind}`);
      if (b.kind === 'RoleBinding' && role.kind === 'ClusterRole') {
        throw new Error('a RoleBinding to a ClusterRole is not expected here');
      }
      return {
        scope: b.kind === 'ClusterRoleBinding' ? 'cluster' : (b.metadata.namespace ?? '?'),
        grants: grants(role.rules),
        rules: role.rules,
      };
    });
  }
  return { roles, bindings, of };
}

describe('chart RBAC', () => {
  beforeAll(() => {
    helm();
  }, HELM_BUILD_TIMEOUT_MS);

  it('holds the rules generated from the rbac.ts of each process', () => {
    const check = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts', 'helm', 'generate-rbac.ts'), '--check'],
      {
        encoding: 'utf8',
      },
    );
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('grants the operator and the gateway exactly their permissions, cluster-wide by default', () => {
    const { of } = rbac(template());
    expect(EXPECTED.operator.length).toBeGreaterThan(0);
    expect(EXPECTED.gateway.length).toBeGreaterThan(0);
    expect(of('operator')).toEqual([
      expect.objectContaining({ scope: 'cluster', grants: EXPECTED.operator }),
      // The cluster's Service and pod ranges and node addresses, which outbound calls never reach.
      expect.objectContaining({ scope: 'cluster', grants: EXPECTED.operatorClusterRanges }),
      // Build Jobs, their pods and copied Secrets: in the build namespace alone.
      expect.objectContaining({ scope: 'slipway-builds', grants: EXPECTED.operatorBuilds }),
      expect.objectContaining({ scope: NAMESPACE, grants: EXPECTED.operatorLeaderElection }),
    ]);
    expect(EXPECTED.operatorClusterRanges).toEqual([
      'core/nodes list',
      'networking.k8s.io/servicecidrs list',
    ]);
    expect(of('gateway')).toEqual([
      expect.objectContaining({ scope: 'cluster', grants: EXPECTED.gateway }),
      // Build pods and their logs, for the bundles' logs URLs: in the build namespace alone.
      expect.objectContaining({ scope: 'slipway-builds', grants: EXPECTED.gatewayBuilds }),
    ]);
    expect(EXPECTED.gatewayBuilds).toEqual(['core/pods list', 'core/pods/log get']);
  });

  it('lets the status API read the status kinds in the release namespace only, by default', () => {
    const { of } = rbac(template());
    expect(of('status-api')).toEqual([
      expect.objectContaining({ scope: NAMESPACE, grants: EXPECTED.statusApi }),
    ]);
  });

  it('never uses wildcards or aggregated roles', () => {
    const { roles } = rbac(template());
    for (const role of roles) {
      for (const rule of role.rules) {
        expect([...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...rule.verbs]).not.toContain('*');
      }
      expect(role).not.toHaveProperty('aggregationRule');
    }
  });

  it('keeps the status API read-only and away from Secrets', () => {
    const { of } = rbac(template());
    const rules = of('status-api').flatMap((b) => b.rules);
    expect(rules.length).toBeGreaterThan(0);
    for (const verb of rules.flatMap((r) => r.verbs)) expect(['get', 'list', 'watch']).toContain(verb);
    expect(rules.flatMap((r) => r.resources ?? [])).not.toContain('secrets');
  });

  it('lets the gateway create bundles (deploying where their Webhook says) and write previews, and only read everything else, without Events', () => {
    const { of } = rbac(template());
    const rendered = of('gateway')
      .filter((b) => b.scope !== 'slipway-builds')
      .flatMap((b) => b.grants);
    expect(rendered.filter((g) => !/ (get|list|watch)$/.test(g))).toEqual([
      'slipway.dev/bundles create',
      'slipway.dev/environments deploy',
      // A pull request's Preview: made, updated and removed from its deliveries.
      'slipway.dev/previews create',
      'slipway.dev/previews delete',
      'slipway.dev/previews patch',
    ]);
    expect(rendered.filter((g) => /\/events /.test(g))).toEqual([]);
  });

  it('grants nothing cluster-wide when watchNamespace is set', () => {
    const manifests = template({ watchNamespace: 'apps' });
    const { roles, bindings, of } = rbac(manifests);
    expect(roles.filter((r) => r.kind === 'ClusterRole')).toEqual([]);
    expect(bindings.filter((b) => b.kind === 'ClusterRoleBinding')).toEqual([]);
    expect(of('operator')).toEqual([
      expect.objectContaining({ scope: 'apps', grants: EXPECTED.operator }),
      expect.objectContaining({ scope: 'slipway-builds', grants: EXPECTED.operatorBuilds }),
      expect.objectContaining({ scope: NAMESPACE, grants: EXPECTED.operatorLeaderElection }),
    ]);
    expect(of('gateway')).toEqual([
      expect.objectContaining({ scope: 'apps', grants: EXPECTED.gateway }),
      expect.objectContaining({ scope: 'slipway-builds', grants: EXPECTED.gatewayBuilds }),
    ]);
    expect(of('status-api')).toEqual([
      expect.objectContaining({ scope: 'apps', grants: EXPECTED.statusApi }),
    ]);
  });

  it('confines the status API to the status namespace when one is set', () => {
    const { of } = rbac(template({ 'statusApi.statusNamespace': 'status' }));
    expect(of('status-api')).toEqual([
      expect.objectContaining({ scope: 'status', grants: EXPECTED.statusApi }),
    ]);
    expect(of('operator')[0]).toMatchObject({ scope: 'cluster' });
  });

  it('refuses a status namespace the operator does not watch', () => {
    const result = run([
      'template',
      RELEASE,
      CHART,
      ...setArgs({ watchNamespace: 'apps', 'statusApi.statusNamespace': 'status' }),
    ]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('statusApi.statusNamespace (status) must equal watchNamespace (apps)');
  });

  it('grants no Lease access to a single operator without leader election', () => {
    const { of } = rbac(template({ 'operator.replicas': 1, 'operator.leaderElection': false }));
    expect(of('operator')).toEqual([
      expect.objectContaining({ scope: 'cluster', grants: EXPECTED.operator }),
      expect.objectContaining({ scope: 'cluster', grants: EXPECTED.operatorClusterRanges }),
      expect.objectContaining({ scope: 'slipway-builds', grants: EXPECTED.operatorBuilds }),
    ]);
  });

  it('renders no RBAC when rbac.create is false', () => {
    const { roles, bindings } = rbac(template({ 'rbac.create': false }));
    expect([...roles, ...bindings]).toEqual([]);
  });
});
