// The NetworkPolicy around every build (rules/build-network-policy.ts), written by its one owner:
// this operator, in the build namespace, from its settings (SLIPWAY_BUILD_EGRESS, the chart's
// operator.buildNetworkPolicy) and the cluster ranges it reads (cluster-ranges.ts), so
// a public node address or a Service range the chart's values never knew is cut out of what a
// build step reaches. Written before the first build starts and again with every read of the ranges.
import type { V1NetworkPolicy } from '@kubernetes/client-node';
import type { KubeClients } from '../../lib/kube.ts';
import type { Logger } from '../../lib/log.ts';
import {
  BUILD_NETWORK_POLICY,
  buildNetworkPolicy,
  type BuildEgressSettings,
} from '../../rules/build-network-policy.ts';
import { cidrText, type Cidr } from '../../rules/cidr.ts';

export class BuildEgressPolicy {
  readonly #apply: KubeClients['apply'];
  readonly #namespace: string;
  readonly #settings: BuildEgressSettings;
  readonly #deny: readonly string[];
  readonly #log: Logger;
  /** The policy last written, as JSON: told in the log when it changes. */
  #written: string | undefined;

  constructor(
    apply: KubeClients['apply'],
    options: { namespace: string; settings: BuildEgressSettings; deny: readonly Cidr[] },
    log: Logger,
  ) {
    this.#apply = apply;
    this.#namespace = options.namespace;
    this.#settings = options.settings;
    this.#deny = options.deny.map(cidrText);
    this.#log = log;
  }

  /** The policy for these cluster ranges. */
  policy(clusterRanges: readonly Cidr[]): V1NetworkPolicy {
    return buildNetworkPolicy(this.#namespace, {
      ...this.#settings,
      deny: this.#deny,
      clusterRanges: clusterRanges.map(cidrText),
    });
  }

  /**
   * Writes the policy for these ranges, with every read (every 10 min): one changed or deleted
   * by hand is put back. A failure is logged, and tried again with the next read.
   */
  async write(clusterRanges: readonly Cidr[]): Promise<void> {
    try {
      const policy = this.policy(clusterRanges);
      const text = JSON.stringify(policy);
      await this.#apply(policy);
      if (text === this.#written) return;
      this.#written = text;
      this.#log.info(
        { namespace: this.#namespace, name: BUILD_NETWORK_POLICY, clusterRanges: clusterRanges.length },
        'wrote the NetworkPolicy around builds',
      );
    } catch (err) {
      this.#log.error(
        { err: String(err), namespace: this.#namespace },
        "writing the NetworkPolicy around builds failed; builds reach what the last one written allows, or nothing (the chart's deny-all policy)",
      );
    }
  }
}
