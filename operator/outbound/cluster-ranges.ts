// The cluster's own address ranges, which outbound calls must not reach even where they are not
// private ones (IPv6 clusters with global addresses, clouds that use public ranges privately):
// its Service ranges (ServiceCIDR objects, Kubernetes 1.33+) and each node's pod ranges
// (spec.podCIDRs) and addresses (the kubelet, NodePorts). Read at start and every
// REFRESH_MS (nodes come and go; every RETRY_MS until a read succeeds); what the operator may not read (a release confined to one
// namespace has no cluster-wide rights) is said once in the log and left to SLIPWAY_OUTBOUND_DENY.
import { HttpMethod, type V1NodeList } from '@kubernetes/client-node';
import { apiStatus, jsonRequest, type KubeConfig } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import { parseCidr, type Cidr } from '../../rules/cidr.ts';
import type { AddressGuard } from './address-guard.ts';

export const REFRESH_MS = 10 * 60_000;

interface ServiceCidrList {
  items: Array<{ spec?: { cidrs?: string[] } }>;
}

/** The ranges `kc` may read, and what it may not. */
export async function readClusterRanges(kc: KubeConfig): Promise<{ ranges: Cidr[]; unread: string[] }> {
  const unread: string[] = [];
  const read = async <T>(what: string, path: string): Promise<T | undefined> => {
    try {
      return await jsonRequest<T>(kc, HttpMethod.GET, path);
    } catch (err) {
      // Not served (before 1.33) or not granted: the configured ranges stand in.
      if (apiStatus(err) === 403 || apiStatus(err) === 404) {
        unread.push(what);
        return undefined;
      }
      throw err;
    }
  };
  const services = await read<ServiceCidrList>('ServiceCIDRs', '/apis/networking.k8s.io/v1/servicecidrs');
  const nodes = await read<V1NodeList>('Nodes', '/api/v1/nodes');
  const texts = [
    ...(services?.items ?? []).flatMap((s) => s.spec?.cidrs ?? []),
    ...(nodes?.items ?? []).flatMap((n) => [
      ...(n.spec?.podCIDRs ?? []),
      ...(n.status?.addresses ?? [])
        .filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP')
        .map((a) => a.address),
    ]),
  ];
  const ranges = texts.map((t) => parseCidr(t)).filter((r): r is Cidr => r !== undefined);
  return { ranges, unread };
}

/** How soon a failed read is tried again (the guard must not go without the ranges for long). */
export const RETRY_MS = 2_000;

/** Keeps `guard`'s cluster ranges current until stop(). */
export class ClusterRanges {
  readonly #kc: KubeConfig;
  readonly #guard: AddressGuard;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #told = false;
  /** Ends the wait of start() (a read succeeded, or stop()). */
  #started: (() => void) | undefined;

  /** Told every read's ranges (the NetworkPolicy around builds follows them). */
  readonly #onRead: ((ranges: readonly Cidr[]) => Promise<void>) | undefined;

  constructor(
    kc: KubeConfig,
    guard: AddressGuard,
    log: Logger,
    onRead?: (ranges: readonly Cidr[]) => Promise<void>,
  ) {
    this.#kc = kc;
    this.#guard = guard;
    this.#log = log;
    this.#onRead = onRead;
  }

  /**
   * Reads now, then every REFRESH_MS (every RETRY_MS while reads fail); resolves once a read
   * succeeded, so the operator can wait for it before it calls out.
   */
  start(): Promise<void> {
    this.#stopped = false;
    return new Promise((resolve) => {
      this.#started = resolve;
      const next = async () => {
        if (this.#stopped) return;
        const ok = await this.refresh();
        if (ok) this.#started?.();
        if (!this.#stopped) this.#timer = setTimeout(() => void next(), ok ? REFRESH_MS : RETRY_MS).unref();
      };
      void next();
    });
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#started?.();
  }

  /** One read into the guard; false when it failed (the last ranges read stand). */
  async refresh(): Promise<boolean> {
    try {
      const { ranges, unread } = await readClusterRanges(this.#kc);
      this.#guard.setClusterRanges(ranges);
      await this.#onRead?.(ranges);
      if (unread.length > 0 && !this.#told) {
        this.#told = true;
        this.#log.info(
          { unread },
          'outbound calls: the cluster ranges that cannot be read here are not refused unless private or in SLIPWAY_OUTBOUND_DENY',
        );
      }
      return true;
    } catch (err) {
      this.#log.warn({ err: String(err) }, 'reading the cluster ranges failed; trying again');
      return false;
    }
  }
}
