// Build Jobs this process has asked for that its cache does not show yet, per project: the
// "expectations" of Kubernetes' own ReplicaSet and Job controllers. Counting running builds as
// the cache's running build Jobs plus these is exact for the one process that creates build
// Jobs (leader election makes it one), without listing the project's Jobs on the API server
// and without a lock: counting and expecting happen in one turn of the event loop.

/** An expectation the cache never confirms (the Job deleted at once) stops counting after this. */
export const EXPECTATION_TTL_MS = 5 * 60_000;

export class BuildExpectations {
  /** project key → Job name → when it was expected. */
  private readonly byProject = new Map<string, Map<string, number>>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** The build Job `job` of project `project` is about to be created. */
  expect(project: string, job: string): void {
    let jobs = this.byProject.get(project);
    if (!jobs) this.byProject.set(project, (jobs = new Map()));
    jobs.set(job, this.now());
  }

  /** The cache shows the Job (or its creation failed, or it is gone): stop expecting it. */
  forget(project: string, job: string): void {
    const jobs = this.byProject.get(project);
    if (!jobs?.delete(job)) return;
    if (jobs.size === 0) this.byProject.delete(project);
  }

  /** Jobs of `project` expected and not yet seen, leaving out those in `except`. */
  pending(project: string, except: (job: string) => boolean): string[] {
    const jobs = this.byProject.get(project);
    if (!jobs) return [];
    const oldest = this.now() - EXPECTATION_TTL_MS;
    const names: string[] = [];
    for (const [job, at] of jobs) {
      if (at < oldest) jobs.delete(job);
      else if (!except(job)) names.push(job);
    }
    return names;
  }
}
