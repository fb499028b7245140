// Whether builds may start as far as the registry is concerned (docs/adr/0006). Without a way to
// keep namespaces apart (SLIPWAY_REGISTRY_AUTH unset) no build starts; with tokens, only while the
// registry asks for a token: one that answers `/v2/` without one takes anybody's pushes, whatever
// credentials Slipway mints. Looked at before the controllers start and once a minute after,
// outside the reconcile; bundles read the answer from memory. A registry the operator cannot
// reach (its own egress may not allow it) does not stop builds: it is logged.
import type { Logger } from '../../lib/log.ts';
import type { OperatorConfig } from '../config.ts';
import { registryHost } from '../../rules/registry-access.ts';

const CHECK_EVERY_MS = 60_000;
const CHECK_TIMEOUT_MS = 5_000;

export class RegistryGuard {
  readonly #url: string;
  readonly #log: Logger;
  #problem: string | undefined;
  #unreachable = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(config: Pick<OperatorConfig, 'registry' | 'registryInsecure'>, log: Logger) {
    this.#url = `${config.registryInsecure ? 'http' : 'https'}://${registryHost(config.registry)}/v2/`;
    this.#log = log;
  }

  /** Looks once (awaited), then every minute until stop(). */
  async start(): Promise<void> {
    await this.#check();
    this.#timer = setInterval(() => void this.#check(), CHECK_EVERY_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Why builds may not start, from the last look; undefined when they may. */
  problem(): string | undefined {
    return this.#problem;
  }

  async #check(): Promise<void> {
    let answer: Response;
    try {
      answer = await fetch(this.#url, { redirect: 'manual', signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
      await answer.body?.cancel();
    } catch (err) {
      // Once, until it answers again (every minute would fill the log of a cluster whose
      // operator may not reach its registry).
      if (!this.#unreachable)
        this.#log.warn({ err, url: this.#url }, 'could not ask the registry whether it asks for tokens');
      this.#unreachable = true;
      return;
    }
    this.#unreachable = false;
    const challenge = answer.headers.get('www-authenticate') ?? '';
    const before = this.#problem;
    this.#problem =
      answer.status >= 200 && answer.status < 300
        ? `the registry answers ${this.#url} without asking for a token, so any build could write any team's images: configure its token auth with the gateway's /registry/token and /registry/jwks.json (docs/adr/0006), or set SLIPWAY_REGISTRY_AUTH=anonymous on a single-team cluster`
        : answer.status === 401 && !/^Bearer\s/i.test(challenge)
          ? `the registry asks for ${challenge.split(' ')[0] || 'other'} credentials at ${this.#url}, not for the gateway's tokens: configure its token auth (docs/adr/0006), or set SLIPWAY_REGISTRY_AUTH=secrets`
          : undefined;
    if (this.#problem !== before)
      this.#log.info({ url: this.#url, problem: this.#problem ?? null }, 'registry token auth looked at');
  }
}

/** Why no build may start, for the operator's configuration and the registry's last answer. */
export function registryProblem(
  config: Pick<OperatorConfig, 'registryAuth' | 'registry'>,
  guard: Pick<RegistryGuard, 'problem'> | undefined,
): string | undefined {
  if (config.registryAuth === undefined)
    return `the operator has no registry credentials for builds, so a build could write any team's images in ${config.registry}: set SLIPWAY_REGISTRY_AUTH=tokens (the chart's default) or a per-namespace SLIPWAY_REGISTRY_PUSH_SECRET, or SLIPWAY_REGISTRY_AUTH=anonymous on a single-team cluster (docs/adr/0006)`;
  return config.registryAuth === 'tokens' ? guard?.problem() : undefined;
}
