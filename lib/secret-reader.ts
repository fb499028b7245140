// Secrets read one by one, by name, as the work names them, and kept for a short time: the
// internet-facing gateway never lists or watches Secrets (RBAC: get only), and a Secret costs at
// most one read per TTL however many deliveries or reports need it. A rotated value is seen
// within the TTL; while the API server cannot be reached, the last value serves a few minutes
// longer. Used by the gateway (webhook secrets) and the operator (report tokens, notification
// receivers); values are never logged.
import type { CoreV1Api } from '@kubernetes/client-node';
import { isNotFound } from './kube.ts';
import type { Logger } from './log.ts';

/** The Secret could not be read now (the API server unreachable or refusing): try again. */
export class SecretUnavailableError extends Error {
  override name = 'SecretUnavailableError';
  constructor(secret: string, cause: unknown) {
    super(`reading Secret ${secret} failed: ${String(cause)}`, { cause });
  }
}

export interface SecretReaderOptions {
  /** How long a Secret, once read, is used before it is read again (a rotation shows within it). */
  ttlMs: number;
  /** How long a missing Secret is remembered as missing. */
  missingTtlMs: number;
  /** How long past its TTL a value is still used while the API server cannot be reached. */
  staleMs: number;
  now?: () => number;
}

interface Entry {
  /** The Secret's data, or undefined when it does not exist. */
  data: Record<string, string> | undefined;
  expiresAt: number;
}

/** Most Secrets remembered; beyond it the cache starts again (the Secrets named are few). */
const MAX_ENTRIES = 10_000;

export class SecretReader {
  readonly #core: CoreV1Api;
  readonly #log: Logger;
  readonly #options: SecretReaderOptions;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #reading = new Map<string, Promise<Entry>>();

  constructor(core: CoreV1Api, log: Logger, options: SecretReaderOptions) {
    this.#core = core;
    this.#log = log;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The value of `key` in Secret `name` (trimmed when `trim`), or undefined when the Secret or
   * key is missing or empty. Rejects with SecretUnavailableError when it cannot be read now.
   */
  async value(namespace: string, name: string, key: string, trim = false): Promise<string | undefined> {
    const entry = await this.#entry(namespace, name);
    const data = entry.data?.[key];
    const decoded = data === undefined ? '' : Buffer.from(data, 'base64').toString('utf8');
    // An empty secret authenticates nothing: treat it as missing, never as "".
    const value = trim ? decoded.trim() : decoded;
    return value === '' ? undefined : value;
  }

  /** Forgets every value (as on losing leadership). */
  clear(): void {
    this.#entries.clear();
  }

  /** Forgets the values of one namespace: the next use reads them again (kubectl slipway reconcile). */
  forget(namespace: string): void {
    for (const id of this.#entries.keys()) if (id.startsWith(`${namespace}/`)) this.#entries.delete(id);
  }

  async #entry(namespace: string, name: string): Promise<Entry> {
    const id = `${namespace}/${name}`;
    const cached = this.#entries.get(id);
    if (cached && cached.expiresAt > this.#now()) return cached;
    // Callers arriving together share one read.
    let reading = this.#reading.get(id);
    if (!reading) {
      reading = this.#read(namespace, name).finally(() => this.#reading.delete(id));
      this.#reading.set(id, reading);
    }
    let entry: Entry;
    try {
      entry = await reading;
    } catch (err) {
      // The API server is unreachable: a value read recently still serves (for staleMs), so a
      // blip does not fail everything that needs it.
      if (cached && this.#now() - cached.expiresAt < this.#options.staleMs) return cached;
      throw err;
    }
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(id, entry);
    return entry;
  }

  async #read(namespace: string, name: string): Promise<Entry> {
    try {
      const secret = await this.#core.readNamespacedSecret({ name, namespace });
      return { data: secret.data ?? {}, expiresAt: this.#now() + this.#options.ttlMs };
    } catch (err) {
      if (isNotFound(err)) return { data: undefined, expiresAt: this.#now() + this.#options.missingTtlMs };
      this.#log.warn({ err, secret: `${namespace}/${name}` }, 'reading a Secret failed');
      throw new SecretUnavailableError(`${namespace}/${name}`, err);
    }
  }
}
