// How a kind joins the operator: each kind's folder exports one registration (its controllers,
// each with its reconciler, workers and what a restart looks at again, and the watches that
// enqueue them), and kinds.ts lists the registrations. operator.ts only loops over them.
import type { SecretReader } from '../lib/secret-reader.ts';
import type { BundleLifecycle } from './bundle/lifecycle.ts';
import type { OperatorContext } from './context.ts';
import type { Controller, Reconciler } from './reconcile/controller.ts';

/** What a registration may use besides the context. */
export interface RegistrationDeps {
  ctx: OperatorContext;
  /** Tokens and receivers, read by name when needed. */
  secrets: SecretReader;
  /** Every outbound call of a controller (one that reads a provider's API) goes through it. */
  outbound: typeof fetch;
  /** A bundle's life-cycle events, which the bundle controller publishes. */
  lifecycle: BundleLifecycle;
}

/** An object a controller's queue names. */
export interface QueueKey {
  metadata?: { namespace?: string; name?: string };
}

export interface ControllerRegistration {
  /** Its queue's name, in logs and metrics (`bundle`, `pull-request-poll`). */
  name: string;
  reconciler: Reconciler;
  /** Workers; the operator's `workers` setting when undefined. */
  workers?: number;
  /**
   * What a (re)start of the controllers enqueues, so nothing waits for an event after a restart
   * or a change of leader (requeues do not survive either).
   */
  restart: () => Iterable<QueueKey>;
}

export interface KindRegistration {
  controllers: ControllerRegistration[];
  /** Subscribes the controllers (by name) to the informer events that concern them. */
  watch(controllers: ReadonlyMap<string, Controller>): void;
}

export type Registration = (deps: RegistrationDeps) => KindRegistration;

/** The controller of `name` among those made (a registration's own: present by construction). */
export function controllerNamed(controllers: ReadonlyMap<string, Controller>, name: string): Controller {
  const controller = controllers.get(name);
  if (!controller) throw new Error(`no controller named ${name} is registered`);
  return controller;
}
