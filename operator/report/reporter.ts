// Reports bundles to their git provider (Project spec.report), outside the reconcile path: the
// bundle controller's life-cycle events only queue a bundle here (outbound/bundle-queue.ts), and
// a few workers send what its status says now (desired.ts) with retries (outbound/call.ts). A slow or failing provider never delays
// a build or a rollout. The final statuses the provider accepted are kept on the bundle
// (status.reported), so after a restart only what is missing is sent, and what could not be
// reported shows on the Project (condition Reported, with the provider's answer, the token cut).
// Tokens are read from their Secret when needed (lib/secret-reader.ts), never logged or written anywhere.
import type { BundleObject, ProjectObject, ReportReason } from '../../crds/index.ts';
import { isNotFound } from '../../lib/kube.ts';
import type { SecretReader } from '../../lib/secret-reader.ts';
import { projectProvider, registry } from '../../providers/index.ts';
import type { Provider } from '../../providers/provider.ts';
import { cleartextApi, type ApiRequest, type CommitState } from '../../providers/report.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { BundleLifecycleEvent } from '../bundle/lifecycle.ts';
import type { OperatorContext } from '../context.ts';
import { reportsTotal } from '../metrics.ts';
import { bundleBranch, bundleCommit, deployContext, desiredStatuses, isFinal } from './desired.ts';
import {
  BundleQueue,
  newestBundle,
  projectOf,
  publicBundleUrl,
  RETRY_WINDOW_MS,
} from '../outbound/bundle-queue.ts';
import { writeProjectCondition } from '../outbound/project-condition.ts';
import { call, type CallResult } from '../outbound/call.ts';

/** A bundle that could not be reported is tried again after 1 min, then twice as late each time. */
const RETRY_FIRST_DELAY_MS = 60_000;

/** What the provider took for one context of a bundle: its state, and the deployment made for it. */
interface Taken {
  state?: CommitState;
  deploymentId?: string;
}

/** The environment of a `slipway/deploy/<environment>` context. */
function deployedEnvironment(context: string): string | undefined {
  const prefix = deployContext('');
  return context.startsWith(prefix) ? context.slice(prefix.length) : undefined;
}

export class Reporter {
  readonly #ctx: OperatorContext;
  readonly #fetch: typeof fetch;
  readonly #queue: BundleQueue;
  /** What each provider took, per bundle and context (finals and deployments also in status.reported). */
  readonly #accepted = new Map<string, Map<string, Taken>>();
  readonly #secrets: SecretReader;

  constructor(ctx: OperatorContext, secrets: SecretReader, fetchImpl: typeof fetch) {
    this.#ctx = ctx;
    this.#secrets = secrets;
    this.#fetch = fetchImpl;
    this.#queue = new BundleQueue(
      ctx.log,
      (key) => this.#report(key),
      () => ctx.now().getTime(),
    );
  }

  /** A bundle life-cycle observer: queues the bundle, never waits. */
  readonly observe = (event: BundleLifecycleEvent): void => this.#queue.observe(event);

  /** After a (re)start: every recent bundle whose provider may not know its latest state. */
  resume(): void {
    const now = this.#ctx.now().getTime();
    this.#queue.resume(
      this.#ctx.informers.bundles.list().filter((bundle) => {
        const finished = timeMs(bundle.status?.finishedAt);
        if (finished !== undefined && now - finished > RETRY_WINDOW_MS) return false;
        return !!bundleCommit(bundle) && !!projectOf(this.#ctx, bundle)?.spec.report;
      }),
    );
  }

  /** On losing leadership: nothing queued or remembered survives (the next leader reads status.reported). */
  stop(): void {
    this.#queue.stop();
    this.#accepted.clear();
  }

  /** Resolves when nothing is queued or being sent (tests). */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  async #report(key: string): Promise<void> {
    const newest = newestBundle(this.#ctx, key);
    if (!newest) return;
    const { bundle, project } = newest;
    const { namespace, name } = bundle.metadata;
    const commit = bundleCommit(bundle);
    if (!project.spec.report || !commit) return;
    const provider = projectProvider(project.spec);
    if (!provider)
      return this.#condition(
        project,
        'False',
        'NotReportable',
        `the provider of ${project.spec.repository?.url ?? 'the repository'} is not known: set spec.provider`,
      );
    const report = registry[provider].report;
    const target = report.target(project.spec.repository?.url ?? '', project.spec.report.apiUrl);
    if (typeof target === 'string') return this.#condition(project, 'False', 'NotReportable', target);
    if (cleartextApi(target.apiUrl))
      return this.#condition(
        project,
        'False',
        'NotReportable',
        `the token is sent only over https, and ${target.apiUrl} is not (set spec.report.apiUrl to the https:// API)`,
      );
    const token = await this.#token(project);
    if (!token) {
      const ref = project.spec.report.tokenSecretRef;
      return this.#condition(
        project,
        'False',
        'TokenNotFound',
        `Secret ${ref.name} has no non-empty key ${ref.key} (spec.report.tokenSecretRef)`,
      );
    }
    const targetUrl = publicBundleUrl(this.#ctx, bundle);
    const accepted = this.#acceptedFor(key, bundle);
    let sent = 0;
    for (const status of desiredStatuses(bundle, targetUrl)) {
      const taken = accepted.get(status.context) ?? {};
      if (taken.state === status.state) continue;
      const environment = deployedEnvironment(status.context);
      let answer: CallResult;
      if (environment !== undefined && report.deployment) {
        // A rollout is a deployment there: made once, then its statuses.
        const api = report.deployment;
        if (!taken.deploymentId) {
          const made = await this.#send(
            api.create(target, commit, token, environment, status.description, bundleBranch(bundle)),
            provider,
            token,
          );
          const id = made.ok ? api.idOf(made.answer) : undefined;
          if (made.ok && id) accepted.set(status.context, { ...taken, deploymentId: id });
          answer =
            made.ok && !id
              ? { ok: false, refused: true, problem: 'its answer named no deployment id' }
              : made;
        } else answer = { ok: true };
        const id = accepted.get(status.context)?.deploymentId;
        // A deployment made running (GitLab's) already says pending.
        const madeRunning = !taken.deploymentId && api.createsRunning && status.state === 'pending';
        if (answer.ok && id && !madeRunning) {
          const environmentUrl = this.#ctx.informers.environments.get(namespace, environment)?.spec.url;
          const details = { description: status.description, logUrl: targetUrl, environmentUrl };
          answer = await this.#send(api.status(target, id, token, status.state, details), provider, token);
        }
      } else answer = await this.#send(report.commitStatus(target, commit, token, status), provider, token);
      if (this.#queue.stopped) return;
      if (!answer.ok) {
        const what = `${status.context} ${status.state} for commit ${commit.slice(0, 12)} (bundle ${name})`;
        await this.#persist(bundle, accepted);
        this.#queue.retryLater(bundle, RETRY_FIRST_DELAY_MS);
        return this.#condition(
          project,
          'False',
          'ReportFailed',
          `${registry[provider].title} did not take ${what}: ${answer.problem}`,
        );
      }
      accepted.set(status.context, { ...accepted.get(status.context), state: status.state });
      sent += 1;
    }
    if (sent > 0)
      await this.#condition(
        project,
        'True',
        'Reported',
        `commit statuses are reported to ${registry[provider].title} at ${target.apiUrl}`,
      );
    this.#queue.done(bundle);
    await this.#persist(bundle, accepted);
  }

  #acceptedFor(key: string, bundle: BundleObject): Map<string, Taken> {
    let accepted = this.#accepted.get(key);
    if (!accepted) {
      accepted = new Map(
        (bundle.status?.reported ?? []).map((r): [string, Taken] => [
          r.context,
          { state: r.state, ...(r.deploymentId ? { deploymentId: r.deploymentId } : {}) },
        ]),
      );
      if (this.#accepted.size > 10_000) this.#accepted.clear();
      this.#accepted.set(key, accepted);
    }
    return accepted;
  }

  /**
   * The final states taken, and the deployments made, on the bundle: after a restart they are not
   * sent or made again.
   */
  async #persist(bundle: BundleObject, accepted: Map<string, Taken>): Promise<void> {
    const reported = [...accepted]
      .filter(([, t]) => (t.state !== undefined && isFinal(t.state)) || t.deploymentId !== undefined)
      .map(([context, t]) => ({
        context,
        state: t.state ?? 'pending',
        ...(t.deploymentId ? { deploymentId: t.deploymentId } : {}),
      }))
      .sort((a, b) => a.context.localeCompare(b.context));
    const before = bundle.status?.reported ?? [];
    if (JSON.stringify(before) === JSON.stringify(reported)) return;
    try {
      await this.#ctx.status.write('Bundle', bundle, { fields: { reported }, conditions: [] });
    } catch (err) {
      // The controller wrote first (409), or the bundle is gone: a later round writes it again.
      if (!isNotFound(err)) this.#queue.retryLater(bundle, 1000);
    }
  }

  /** The Project's Reported condition (written only when it changes). */
  #condition(
    project: ProjectObject,
    status: 'True' | 'False',
    reason: ReportReason,
    message: string,
  ): Promise<void> {
    return writeProjectCondition(this.#ctx, project, { type: 'Reported', reason }, status, message);
  }

  #token(project: ProjectObject): Promise<string | undefined> {
    const ref = project.spec.report!.tokenSecretRef;
    return this.#secrets.value(project.metadata.namespace, ref.name, ref.key, true);
  }

  /** One request, retried as the provider asks; the token never appears in what is returned. */
  async #send(request: ApiRequest, provider: Provider, token: string): Promise<CallResult> {
    const result = await call(request, {
      fetch: this.#fetch,
      secrets: [token],
      sleep: (ms) => this.#queue.sleep(ms),
      stopped: () => this.#queue.stopped,
      // GitLab refuses to set a state the status already has: it is there
      // (commit statuses: "Cannot transition status via :run from :running"; deployments:
      // {"message":{"status":["cannot transition via \"run\""]}}).
      alreadyDone: (status, text) => status === 400 && /cannot transition (status )?via/i.test(text),
    });
    if (!this.#queue.stopped)
      reportsTotal.inc({ provider, result: result.ok ? 'accepted' : result.refused ? 'refused' : 'failed' });
    return result;
  }
}
