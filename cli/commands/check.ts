// kubectl slipway check [--pre]: can Slipway run here, and does it? As `flux check`: --pre before
// installing (the Kubernetes version, the admission API the policies need, the Pod Security of
// where builds run); without it, also what the install made (CRDs, admission policies, the
// operator looking at this namespace, the gateway and status API answering). Works with a
// namespace user's read rights: what needs more says "cannot tell" (a warning, not a failure).
import type { BundleObject, ProjectObject, StatusPageObject } from '../../crds/index.ts';
import { apiMessage } from '../../lib/kube.ts';
import { DEFAULT_BUILD_NAMESPACE } from '../../rules/build-namespace.ts';
import {
  admissionApi,
  admissionPoliciesActive,
  buildNamespace,
  customResources,
  gatewayAnswers,
  kubernetesVersion,
  operatorLooking,
  statusApiAnswers,
  type CheckResult,
} from '../checks.ts';
import { printObject } from '../print.ts';
import { positionals, text, type Command } from './command.ts';

const MARK = { ok: '✔', warn: '!', fail: '✗' } as const;

/** Where this namespace's builds ran (a bundle says so), else the flag, else the default. */
async function buildNamespaceName(ctx: Parameters<Command['run']>[0], flag: string | undefined) {
  if (flag) return flag;
  const bundles = await ctx.slipway.list<BundleObject>('Bundle', ctx.namespace).catch(() => []);
  return bundles.find((b) => b.status?.build?.namespace)?.status?.build?.namespace ?? DEFAULT_BUILD_NAMESPACE;
}

export const checkCommand: Command = {
  name: 'check',
  summary: 'check that Slipway can run on this cluster (--pre) and that it does, for this namespace',
  usage: 'check [--pre] [--build-namespace NAME] [--gateway-url URL] [--status-url URL]',
  help: `--pre, before installing: the Kubernetes version (1.30 or newer), ValidatingAdmissionPolicy
(admissionregistration.k8s.io/v1), and the Pod Security of the build namespace (privileged).
Without --pre, also: the nine CRDs served, the admission policies installed and bound (or, for
a user who may not list them, acting on a dry run), the operator looking at this namespace's
Projects, the gateway answering at the URL they publish, and the status API at the StatusPage's
URL. Exit 0 when nothing failed ("!" lines could not be told with your rights), 1 otherwise.

Example: kubectl slipway check --pre
         kubectl slipway -n shop check --status-url https://status.example.com`,
  options: {
    pre: { type: 'boolean' },
    'build-namespace': { type: 'string' },
    'gateway-url': { type: 'string' },
    'status-url': { type: 'string' },
  },
  async run(ctx, args, values) {
    positionals(args, []);
    const pre = values.pre === true;
    // One check's error (a 404 where an API is not served, an API server that does not answer)
    // is that check's failure: the others are still printed.
    const checked = async (name: string, check: () => Promise<CheckResult> | CheckResult) => {
      try {
        return await check();
      } catch (err) {
        return { check: name, state: 'fail', message: apiMessage(err) } satisfies CheckResult;
      }
    };
    const results: CheckResult[] = [
      await checked('kubernetes', () => kubernetesVersion(ctx)),
      await checked('admission API', () => admissionApi(ctx)),
      await checked('build namespace', async () =>
        buildNamespace(ctx, pre, await buildNamespaceName(ctx, text(values, 'build-namespace'))),
      ),
    ];
    if (!pre) {
      results.push(
        await checked('CRDs', () => customResources(ctx)),
        await checked('admission policies', () => admissionPoliciesActive(ctx)),
      );
      const listed = <T>(kind: 'Project' | 'StatusPage') =>
        ctx.slipway.list<T>(kind, ctx.namespace).catch(() => [] as T[]);
      const projects = await listed<ProjectObject>('Project');
      const pages = await listed<StatusPageObject>('StatusPage');
      results.push(
        operatorLooking(projects, ctx.namespace),
        await checked('gateway', () => gatewayAnswers(projects, text(values, 'gateway-url'))),
        await checked('status API', () => statusApiAnswers(pages, text(values, 'status-url'))),
      );
    }
    const failed = results.filter((r) => r.state === 'fail').length;
    if (!printObject(ctx, { checks: results, failed })) {
      for (const r of results) ctx.out(`${MARK[r.state]} ${r.check}: ${r.message}`);
      ctx.err(failed === 0 ? 'all checks passed' : `${failed} check(s) failed`);
    }
    return failed === 0 ? 0 : 1;
  },
};
