// What `kubectl slipway check` looks at, one function per line it prints. Each asks only what a
// namespace user may ask (discovery, /version, their own namespace's objects, a dry run) and
// says "cannot tell" rather than fail where a right outside the namespace would be needed.
import { HttpMethod, VersionApi } from '@kubernetes/client-node';
import { admissionPolicies } from '../crds/admission.ts';
import {
  GROUP,
  VERSION,
  kinds,
  type BundleObject,
  type ProjectObject,
  type StatusPageObject,
} from '../crds/index.ts';
import { WRITERS_POLICY } from '../crds/writers.ts';
import { apiMessage, apiStatus, jsonRequest, kindPath } from '../lib/kube.ts';
import type { CliContext } from './context.ts';

export type CheckState = 'ok' | 'warn' | 'fail';
export interface CheckResult {
  check: string;
  state: CheckState;
  message: string;
}

/** The oldest Kubernetes Slipway runs on: ValidatingAdmissionPolicy is GA (admissionregistration.k8s.io/v1). */
export const MIN_KUBERNETES = { major: 1, minor: 30 };
const HTTP_TIMEOUT_MS = 5_000;

const result = (check: string, state: CheckState, message: string): CheckResult => ({
  check,
  state,
  message,
});
const forbidden = (err: unknown) => apiStatus(err) === 403;

export async function kubernetesVersion(ctx: CliContext): Promise<CheckResult> {
  const info = await ctx.kc.makeApiClient(VersionApi).getCode();
  const minor = Number.parseInt(info.minor, 10);
  const major = Number.parseInt(info.major, 10);
  const enough =
    major > MIN_KUBERNETES.major || (major === MIN_KUBERNETES.major && minor >= MIN_KUBERNETES.minor);
  const wanted = `${MIN_KUBERNETES.major}.${MIN_KUBERNETES.minor}`;
  return enough
    ? result('kubernetes', 'ok', `${info.gitVersion} (${wanted} or newer is needed)`)
    : result(
        'kubernetes',
        'fail',
        `${info.gitVersion} is too old: Slipway needs Kubernetes ${wanted} or newer`,
      );
}

interface ResourceList {
  resources: Array<{ name: string; kind: string }>;
}

/** The resources a group version serves (discovery, which every authenticated user may read). */
async function served(ctx: CliContext, groupVersion: string): Promise<Set<string> | undefined> {
  try {
    const list = await jsonRequest<ResourceList>(ctx.kc, HttpMethod.GET, `/apis/${groupVersion}`);
    return new Set(list.resources.map((r) => r.name));
  } catch (err) {
    if (apiStatus(err) === 404) return undefined;
    throw err;
  }
}

/** The admission policies need ValidatingAdmissionPolicy v1 (with params, variables and the authorizer). */
export async function admissionApi(ctx: CliContext): Promise<CheckResult> {
  const resources = await served(ctx, 'admissionregistration.k8s.io/v1');
  const needed = ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'];
  const missing = needed.filter((r) => !resources?.has(r));
  return missing.length === 0
    ? result('admission API', 'ok', 'ValidatingAdmissionPolicy is served (admissionregistration.k8s.io/v1)')
    : result(
        'admission API',
        'fail',
        `admissionregistration.k8s.io/v1 does not serve ${missing.join(', ')}: the policies that check what tenants write cannot be installed`,
      );
}

/** Where builds run: rootless BuildKit needs Pod Security "privileged" (Unconfined seccomp and AppArmor). */
export async function buildNamespace(ctx: CliContext, pre: boolean, name: string): Promise<CheckResult> {
  const check = 'build namespace';
  let labels: Record<string, string> | undefined;
  try {
    labels = (await ctx.clients.core.readNamespace({ name })).metadata?.labels ?? {};
  } catch (err) {
    if (forbidden(err))
      return result(
        check,
        'warn',
        `cannot tell: reading namespace ${name} needs get on namespaces (ask a cluster admin)`,
      );
    if (apiStatus(err) !== 404) throw err;
  }
  if (!labels)
    return pre
      ? result(
          check,
          'ok',
          `${name} does not exist yet: the chart makes it, with Pod Security enforce=privileged`,
        )
      : result(
          check,
          'fail',
          `${name} does not exist: no build can start (the chart's operator.buildNamespace)`,
        );
  const level = labels['pod-security.kubernetes.io/enforce'];
  if (level === 'privileged')
    return result(check, 'ok', `${name}: Pod Security enforce=privileged, as rootless BuildKit needs`);
  if (level === undefined)
    return result(
      check,
      'warn',
      `${name} has no pod-security.kubernetes.io/enforce label: the cluster's default applies, and build pods need privileged`,
    );
  return result(
    check,
    'fail',
    `${name}: Pod Security enforce=${level} refuses build pods: rootless BuildKit needs privileged (Unconfined seccomp and AppArmor)`,
  );
}

export async function customResources(ctx: CliContext): Promise<CheckResult> {
  const resources = await served(ctx, `${GROUP}/${VERSION}`);
  const missing = kinds.filter((k) => !resources?.has(k.plural)).map((k) => k.kind);
  return missing.length === 0
    ? result('CRDs', 'ok', `${kinds.length} kinds served (${GROUP}/${VERSION})`)
    : result(
        'CRDs',
        'fail',
        `not served: ${missing.join(', ')} (install the chart, or kubectl apply --server-side -f deploy/crds/)`,
      );
}

/**
 * The policies are installed and bound. Listing them needs a cluster-wide right; without it, a
 * dry run shows whether they act: a Bundle with trigger Webhook from the user must be refused
 * by slipway-writers (only Slipway makes push bundles). Nothing is stored either way.
 */
export async function admissionPoliciesActive(ctx: CliContext): Promise<CheckResult> {
  const check = 'admission policies';
  const expected = admissionPolicies();
  try {
    const base = '/apis/admissionregistration.k8s.io/v1';
    const list = async (plural: string) =>
      (
        await jsonRequest<{ items: Array<{ metadata: { name: string } }> }>(
          ctx.kc,
          HttpMethod.GET,
          `${base}/${plural}`,
        )
      ).items.map((i) => i.metadata.name);
    const [policies, bindings] = await Promise.all([
      list('validatingadmissionpolicies'),
      list('validatingadmissionpolicybindings'),
    ]);
    const missing = expected
      .filter(
        (p) => !policies.includes(p.policy.metadata.name) || !bindings.includes(p.binding.metadata.name),
      )
      .map((p) => p.policy.metadata.name);
    return missing.length === 0
      ? result(check, 'ok', `${expected.length} policies installed and bound`)
      : result(
          check,
          'fail',
          `missing or unbound: ${missing.join(', ')} (the chart's admissionPolicies.enabled)`,
        );
  } catch (err) {
    if (!forbidden(err)) throw err;
  }
  return dryRunRefused(ctx, check);
}

async function dryRunRefused(ctx: CliContext, check: string): Promise<CheckResult> {
  const probe: BundleObject = {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Bundle',
    metadata: { name: 'slipway-check-probe', namespace: ctx.namespace },
    spec: {
      projectRef: { name: 'slipway-check' },
      source: { git: { commit: '0'.repeat(40), branch: 'main' } },
      trigger: {
        type: 'Webhook',
        provider: 'github',
        webhookRef: { name: 'slipway-check' },
        deliveryId: 'check',
      },
    },
  } as BundleObject;
  try {
    await jsonRequest(ctx.kc, HttpMethod.POST, `${kindPath('Bundle', ctx.namespace)}?dryRun=All`, probe);
  } catch (err) {
    const message = apiMessage(err);
    if (message.includes(WRITERS_POLICY))
      return result(check, 'ok', `acting: a push bundle from you is refused by ${WRITERS_POLICY} (dry run)`);
    if (forbidden(err))
      return result(
        check,
        'warn',
        'cannot tell: listing them needs a cluster-wide right, and you may not create bundles for a dry run',
      );
    return result(
      check,
      'warn',
      `cannot tell: a dry run of a push bundle from you was refused for another reason: ${message}`,
    );
  }
  return result(
    check,
    'fail',
    `not acting: a push bundle from you was admitted (dry run); ${WRITERS_POLICY} is missing or unbound`,
  );
}

/** The operator looks at this namespace: each Project's status is current and names its version. */
export function operatorLooking(projects: readonly ProjectObject[], namespace: string): CheckResult {
  const check = 'operator';
  if (projects.length === 0)
    return result(
      check,
      'warn',
      `cannot tell: namespace ${namespace} has no Project for the operator to look at`,
    );
  const behind = projects.filter(
    (p) => !p.status?.operatorVersion || p.status.observedGeneration !== p.metadata.generation,
  );
  if (behind.length > 0)
    return result(
      check,
      'fail',
      `has not looked at ${behind.map((p) => `project ${p.metadata.name} (generation ${p.metadata.generation})`).join(', ')}: is it running, watching namespace ${namespace}, and as new as this CLI?`,
    );
  const versions = [...new Set(projects.map((p) => p.status!.operatorVersion!))];
  return result(
    check,
    'ok',
    `${versions.join(', ')} looks at the ${projects.length} project(s) of ${namespace}`,
  );
}

/** A GET that answers 200, within seconds. */
async function answers(check: string, url: string, what: string): Promise<CheckResult> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
    await response.body?.cancel();
    return response.ok
      ? result(check, 'ok', `${url} answers ${response.status}`)
      : result(check, 'fail', `${url} answers ${response.status} (${what})`);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    return result(check, 'fail', `${url} does not answer: ${why} (${what})`);
  }
}

/** The gateway serves the upload script at the URL the Projects publish (or --gateway-url). */
export function gatewayAnswers(
  projects: readonly ProjectObject[],
  override?: string,
): Promise<CheckResult> | CheckResult {
  const url = override
    ? `${override.replace(/\/+$/, '')}/upload.sh`
    : projects.find((p) => p.status?.uploadScriptUrl)?.status?.uploadScriptUrl;
  if (!url)
    return result(
      'gateway',
      'warn',
      'cannot tell: no Project publishes the gateway URL yet (pass --gateway-url)',
    );
  return answers('gateway', url, "the operator's gateway base URL, or the Ingress in front of the gateway");
}

/** The status API serves /api/v1/status at the StatusPage's URL (or --status-url). */
export function statusApiAnswers(
  pages: readonly StatusPageObject[],
  override?: string,
): Promise<CheckResult> | CheckResult {
  const base = override ?? pages[0]?.spec.url;
  if (!base)
    return result('status API', 'warn', 'not checked: the namespace has no StatusPage (pass --status-url)');
  return answers(
    'status API',
    `${base.replace(/\/+$/, '')}/api/v1/status`,
    "the StatusPage's spec.url, or the Ingress in front of the status API",
  );
}
