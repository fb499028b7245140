// Slows down guessing of URL tokens and secrets: a client address that failed authentication too
// often within a window gets 429 until the window has passed. Memory is bounded by forgetting the
// least recently failed addresses first.
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_TRACKED_CLIENTS, AUTH_FAILURE_WINDOW_MS } from '../limits.ts';

interface Window {
  startedAt: number;
  failures: number;
}

export interface AuthFailureOptions {
  limit?: number;
  windowMs?: number;
  trackedClients?: number;
}

export class AuthFailureLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #trackedClients: number;
  /** Insertion order is recency order: a failing client is moved to the end. */
  readonly #windows = new Map<string, Window>();

  constructor(options: AuthFailureOptions = {}) {
    this.#limit = options.limit ?? AUTH_FAILURE_LIMIT;
    this.#windowMs = options.windowMs ?? AUTH_FAILURE_WINDOW_MS;
    this.#trackedClients = options.trackedClients ?? AUTH_FAILURE_TRACKED_CLIENTS;
  }

  /** Seconds until `client` may try again, or 0 when it is not blocked. */
  retryAfterSeconds(client: string, now: Date): number {
    const window = this.#current(client, now);
    if (!window || window.failures < this.#limit) return 0;
    return Math.max(1, Math.ceil((window.startedAt + this.#windowMs - now.getTime()) / 1000));
  }

  recordFailure(client: string, now: Date): void {
    const window = this.#current(client, now) ?? { startedAt: now.getTime(), failures: 0 };
    window.failures += 1;
    this.#windows.delete(client);
    this.#windows.set(client, window);
    while (this.#windows.size > this.#trackedClients) {
      const oldest = this.#windows.keys().next().value as string;
      this.#windows.delete(oldest);
    }
  }

  #current(client: string, now: Date): Window | undefined {
    const window = this.#windows.get(client);
    if (window && now.getTime() - window.startedAt >= this.#windowMs) {
      this.#windows.delete(client);
      return undefined;
    }
    return window;
  }
}
