// The webhook Secrets the gateway needs, read one by one as deliveries name their project and
// kept for a short time: the internet-facing gateway never lists or watches Secrets (RBAC: get
// only), and a project costs at most one read per TTL however many deliveries arrive. A rotated
// secret is seen within the TTL; while the API server cannot be reached, the last value serves a
// few minutes longer.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '../lib/kube.ts';
import type { Logger } from '../lib/log.ts';
import { SecretUnavailableError } from './http/ports.ts';
import { SECRET_CACHE_TTL_MS, SECRET_MISSING_TTL_MS, SECRET_STALE_MS } from './limits.ts';

interface Entry {
  /** The Secret's data, or undefined when it does not exist. */
  data: Record<string, string> | undefined;
  expiresAt: number;
}

/** Most Secrets remembered; beyond it the cache starts again (the projects' secrets are few). */
const MAX_ENTRIES = 10_000;

export class SecretReader {
  readonly #core: CoreV1Api;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #reading = new Map<string, Promise<Entry>>();

  constructor(kc: KubeConfig, log: Logger, now: () => number = Date.now) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#log = log;
    this.#now = now;
  }

  /** The value of `key` in Secret `name`, or undefined when the Secret or key is missing or empty. */
  async value(namespace: string, name: string, key: string): Promise<string | undefined> {
    const entry = await this.#entry(namespace, name);
    const data = entry.data?.[key];
    // An empty secret authenticates nothing: treat it as missing, never as "".
    const secret = data === undefined ? '' : Buffer.from(data, 'base64').toString('utf8');
    return secret === '' ? undefined : secret;
  }

  async #entry(namespace: string, name: string): Promise<Entry> {
    const id = `${namespace}/${name}`;
    const cached = this.#entries.get(id);
    if (cached && cached.expiresAt > this.#now()) return cached;
    // Deliveries arriving together share one read.
    let reading = this.#reading.get(id);
    if (!reading) {
      reading = this.#read(namespace, name).finally(() => this.#reading.delete(id));
      this.#reading.set(id, reading);
    }
    let entry: Entry;
    try {
      entry = await reading;
    } catch (err) {
      // The API server is unreachable: a value read recently still authenticates (for
      // SECRET_STALE_MS), so a blip does not fail every delivery.
      if (cached && this.#now() - cached.expiresAt < SECRET_STALE_MS) return cached;
      throw err;
    }
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(id, entry);
    return entry;
  }

  async #read(namespace: string, name: string): Promise<Entry> {
    try {
      const secret = await this.#core.readNamespacedSecret({ name, namespace });
      return { data: secret.data ?? {}, expiresAt: this.#now() + SECRET_CACHE_TTL_MS };
    } catch (err) {
      if (isNotFound(err)) return { data: undefined, expiresAt: this.#now() + SECRET_MISSING_TTL_MS };
      this.#log.warn({ err, secret: `${namespace}/${name}` }, 'reading a webhook Secret failed');
      throw new SecretUnavailableError(`${namespace}/${name}`, err);
    }
  }
}
