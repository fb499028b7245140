// The controllers every registered kind asks for (kinds.ts, registration.ts), made once, run
// while this replica leads, and given one look at everything in their caches on each start.
import type { Logger } from '../lib/log.ts';
import { kinds } from './kinds.ts';
import { Controller } from './reconcile/controller.ts';
import type { ControllerRegistration, RegistrationDeps } from './registration.ts';

export class KindControllers {
  readonly #controllers = new Map<string, { controller: Controller; registration: ControllerRegistration }>();

  constructor(deps: RegistrationDeps, workers: number, log: Logger) {
    const made = new Map<string, Controller>();
    for (const kind of kinds.map((register) => register(deps))) {
      for (const registration of kind.controllers) {
        const { name, reconciler } = registration;
        const controller = new Controller(name, reconciler, registration.workers ?? workers, log);
        made.set(name, controller);
        this.#controllers.set(name, { controller, registration });
      }
      kind.watch(made);
    }
  }

  /** Starts every controller, then enqueues what each one's restart names: nothing is lost across restarts. */
  start(): void {
    for (const { controller } of this.#controllers.values()) controller.start();
    for (const { controller, registration } of this.#controllers.values())
      for (const o of registration.restart()) controller.enqueue(o.metadata?.namespace, o.metadata?.name);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#controllers.values()].map(({ controller }) => controller.stop()));
  }

  /** Resolves when no controller has queued or running work. */
  async idle(): Promise<void> {
    await Promise.all([...this.#controllers.values()].map(({ controller }) => controller.idle()));
  }

  /** The controller registered as `name`. */
  get(name: string): Controller {
    const found = this.#controllers.get(name);
    if (!found) throw new Error(`no controller named ${name}`);
    return found.controller;
  }
}
