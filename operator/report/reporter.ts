// Reports bundles to their git provider (Project spec.report), outside the reconcile path: the
// bundle controller's life-cycle events only queue a bundle here, and a few workers send what its
// status says now (desired.ts) with retries (retry.ts). A slow or failing provider never delays
// a build or a rollout. The final statuses the provider accepted are kept on the bundle
// (status.reported), so after a restart only what is missing is sent, and what could not be
// reported shows on the Project (condition Reported, with the provider's answer, the token cut).
// Tokens are read from their Secret when needed (kept 30 s), never logged or written anywhere.
import type { BundleObject, ProjectObject, ReportReason } from '../../crds/index.ts';
import { objectKey } from '../../lib/informer.ts';
import { isNotFound } from '../../lib/kube.ts';
import { projectProvider, registry } from '../../providers/index.ts';
import type { Provider } from '../../providers/provider.ts';
import type { ApiRequest, CommitState } from '../../providers/report.ts';
import { bundleStatusUrl } from '../../rules/bundle-status-url.ts';
import { timeMs } from '../../rules/timestamps.ts';
import type { BundleLifecycleEvent } from '../bundle/lifecycle.ts';
import type { OperatorContext } from '../context.ts';
import { reportsTotal } from '../metrics.ts';
import { bundleCommit, desiredStatuses, isFinal } from './desired.ts';
import { MAX_ATTEMPTS, retryable, retryDelayMs, type Answer } from './retry.ts';

const WORKERS = 4;
const CALL_TIMEOUT_MS = 10_000;
const TOKEN_TTL_MS = 30_000;
/** After a restart, finished bundles older than this are not reported again. */
const RESUME_WINDOW_MS = 24 * 3600_000;

type Sent = { ok: true } | { ok: false; problem: string };

export class Reporter {
  readonly #ctx: OperatorContext;
  readonly #fetch: typeof fetch;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #busy = new Set<string>();
  /** What each provider accepted, per bundle: context → state (finals also in status.reported). */
  readonly #accepted = new Map<string, Map<string, CommitState>>();
  /** The newest status the bundle controller wrote, per bundle, until a round reads it. */
  readonly #written = new Map<string, BundleObject>();
  readonly #tokens = new Map<string, { at: number; value: string | undefined }>();
  /** Pending waits (retries, re-reads), each with what ends it early when the reporter stops. */
  readonly #timers = new Map<NodeJS.Timeout, () => void>();
  #workers = 0;
  #stopped = false;
  #idle: Array<() => void> = [];

  constructor(ctx: OperatorContext, fetchImpl: typeof fetch = fetch) {
    this.#ctx = ctx;
    this.#fetch = fetchImpl;
  }

  /**
   * A bundle life-cycle observer: queues the bundle, never waits. The event carries the status
   * just written, which the informer cache may not show yet: it is what gets reported.
   */
  readonly observe = (event: BundleLifecycleEvent): void => {
    const { namespace, name } = event.bundle.metadata;
    if (this.#written.size > 10_000) this.#written.clear();
    this.#written.set(objectKey(namespace, name), event.bundle);
    this.enqueue(event.bundle);
  };

  /** After a (re)start: every recent bundle whose provider may not know its latest state. */
  resume(): void {
    this.#stopped = false;
    const now = this.#ctx.now().getTime();
    for (const bundle of this.#ctx.informers.bundles.list()) {
      const finished = timeMs(bundle.status?.finishedAt);
      if (finished !== undefined && now - finished > RESUME_WINDOW_MS) continue;
      if (bundleCommit(bundle) && this.#project(bundle)?.spec.report) this.enqueue(bundle);
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const [timer, end] of this.#timers) {
      clearTimeout(timer);
      end();
    }
    this.#timers.clear();
  }

  enqueue(bundle: BundleObject): void {
    const key = objectKey(bundle.metadata.namespace, bundle.metadata.name);
    if (this.#stopped || this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#queue.push(key);
    this.#pump();
  }

  /** Resolves when nothing is queued or being sent (tests). */
  idle(): Promise<void> {
    if (this.#workers === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    while (this.#workers < WORKERS && this.#queue.length > 0) {
      // A bundle being sent waits for that round to end; its next round reads its latest status.
      const index = this.#queue.findIndex((k) => !this.#busy.has(k));
      if (index < 0) return;
      const [key] = this.#queue.splice(index, 1);
      this.#queued.delete(key!);
      this.#busy.add(key!);
      this.#workers += 1;
      void this.#report(key!)
        .catch((err: unknown) => this.#ctx.log.warn({ err, bundle: key }, 'reporting a bundle failed'))
        .finally(() => {
          this.#busy.delete(key!);
          this.#workers -= 1;
          this.#pump();
          if (this.#workers === 0 && this.#queue.length === 0)
            for (const done of this.#idle.splice(0)) done();
        });
    }
  }

  #project(bundle: BundleObject): ProjectObject | undefined {
    return this.#ctx.informers.projects.get(bundle.metadata.namespace, bundle.spec.projectRef.name);
  }

  async #report(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const cached = this.#ctx.informers.bundles.get(namespace, name);
    const written = this.#written.get(key);
    this.#written.delete(key);
    const bundle = cached && written ? { ...cached, status: written.status } : cached;
    const project = bundle && this.#project(bundle);
    const commit = bundle && bundleCommit(bundle);
    if (!bundle || !project?.spec.report || !commit) return;
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
    const { config } = this.#ctx;
    const targetUrl = config.archiveUrlKey
      ? bundleStatusUrl(config.gatewayBaseUrl, config.archiveUrlKey, namespace, name)
      : undefined;
    const accepted = this.#acceptedFor(key, bundle);
    let sent = 0;
    for (const status of desiredStatuses(bundle, targetUrl)) {
      if (accepted.get(status.context) === status.state) continue;
      const answer = await this.#send(report.commitStatus(target, commit, token, status), provider, token);
      if (this.#stopped) return;
      if (!answer.ok) {
        const what = `${status.context} ${status.state} for commit ${commit.slice(0, 12)} (bundle ${name})`;
        return this.#condition(
          project,
          'False',
          'ReportFailed',
          `${registry[provider].title} did not take ${what}: ${answer.problem}`,
        );
      }
      accepted.set(status.context, status.state);
      sent += 1;
    }
    if (sent > 0)
      await this.#condition(
        project,
        'True',
        'Reported',
        `commit statuses are reported to ${registry[provider].title} at ${target.apiUrl}`,
      );
    await this.#persist(bundle, accepted);
  }

  #acceptedFor(key: string, bundle: BundleObject): Map<string, CommitState> {
    let accepted = this.#accepted.get(key);
    if (!accepted) {
      accepted = new Map((bundle.status?.reported ?? []).map((r) => [r.context, r.state]));
      if (this.#accepted.size > 10_000) this.#accepted.clear();
      this.#accepted.set(key, accepted);
    }
    return accepted;
  }

  /** The final states accepted, on the bundle: after a restart, they are not sent again. */
  async #persist(bundle: BundleObject, accepted: Map<string, CommitState>): Promise<void> {
    const reported = [...accepted]
      .filter(([, state]) => isFinal(state))
      .map(([context, state]) => ({ context, state }))
      .sort((a, b) => a.context.localeCompare(b.context));
    const before = bundle.status?.reported ?? [];
    if (JSON.stringify(before) === JSON.stringify(reported)) return;
    try {
      await this.#ctx.status.write('Bundle', bundle, { fields: { reported }, conditions: [] });
    } catch (err) {
      // The controller wrote first (409), or the bundle is gone: the next round writes it again.
      if (!isNotFound(err)) this.#later(bundle, 1000);
    }
  }

  #later(bundle: BundleObject, ms: number): void {
    void this.#sleep(ms).then(() => {
      const latest = this.#ctx.informers.bundles.get(bundle.metadata.namespace, bundle.metadata.name);
      if (latest) this.enqueue(latest);
    });
  }

  /** The Project's Reported condition (written only when it changes). */
  async #condition(
    project: ProjectObject,
    status: 'True' | 'False',
    reason: ReportReason,
    message: string,
  ): Promise<void> {
    if (status === 'False')
      this.#ctx.log.warn(
        { project: objectKey(project.metadata.namespace, project.metadata.name), reason },
        message,
      );
    try {
      await this.#ctx.status.write(
        'Project',
        project,
        { fields: {}, conditions: [{ type: 'Reported', status, reason, message }] },
        () => [],
      );
    } catch (err) {
      this.#ctx.log.debug(
        { err },
        "writing a Project's Reported condition failed; the next report writes it",
      );
    }
  }

  async #token(project: ProjectObject): Promise<string | undefined> {
    const ref = project.spec.report!.tokenSecretRef;
    const key = `${project.metadata.namespace}/${ref.name}/${ref.key}`;
    const now = this.#ctx.now().getTime();
    const cached = this.#tokens.get(key);
    if (cached && now - cached.at < TOKEN_TTL_MS) return cached.value;
    let value: string | undefined;
    try {
      const secret = await this.#ctx.clients.core.readNamespacedSecret({
        name: ref.name,
        namespace: project.metadata.namespace,
      });
      const encoded = secret.data?.[ref.key];
      value = encoded ? Buffer.from(encoded, 'base64').toString('utf8').trim() || undefined : undefined;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (this.#tokens.size > 1000) this.#tokens.clear();
    this.#tokens.set(key, { at: now, value });
    return value;
  }

  /** One request, retried as the provider asks; the token never appears in what is returned. */
  async #send(request: ApiRequest, provider: Provider, token: string): Promise<Sent> {
    let problem = '';
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && !this.#stopped; attempt += 1) {
      let answer: Answer | undefined;
      try {
        const res = await this.#fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: JSON.stringify(request.body),
          redirect: 'manual',
          signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
        });
        const text = (await res.text()).replaceAll(token, '…').replace(/\s+/g, ' ').slice(0, 300);
        if (res.status >= 200 && res.status < 300) {
          reportsTotal.inc({ provider, result: 'accepted' });
          return { ok: true };
        }
        // GitLab refuses to set a state the status already has: it is there.
        if (res.status === 400 && /cannot transition status/i.test(text)) return { ok: true };
        problem = `HTTP ${res.status}${text ? `: ${text}` : ''}`;
        if (!retryable(res)) {
          reportsTotal.inc({ provider, result: 'refused' });
          return { ok: false, problem };
        }
        answer = res;
      } catch (err) {
        problem = String((err as Error).message ?? err).replaceAll(token, '…');
      }
      if (attempt === MAX_ATTEMPTS) break;
      await this.#sleep(retryDelayMs(answer, attempt, Date.now()));
    }
    reportsTotal.inc({ provider, result: 'failed' });
    return { ok: false, problem: `${problem} (after ${MAX_ATTEMPTS} attempts)` };
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve();
      }, ms);
      this.#timers.set(timer, resolve);
    });
  }
}
