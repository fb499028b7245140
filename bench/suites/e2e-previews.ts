// Pull request → preview served, for the e2e suite (suites/e2e.ts): previews turned on for a
// project that already serves its environment, then a GitHub pull_request delivery, timed until
// the node's ingress controller answers the preview's host with the pull request's page:
//   opened  the project's first pull request: its build (an empty store of the previews' own),
//           and the Deployment, Service and Ingress copies made
//   later   a second pull request, once the first was closed and its preview gone: a build in
//           the store the first left, and the copies made again
//   push    a push to a pull request (synchronize): a build, and the copy's image replaced
import { waitFor } from '../../lib/wait.ts';
import { githubPullRequest } from '../../test/support/github-push.ts';
import { throughIngress } from '../../test/e2e/support/ingress.ts';
import { webService } from '../../test/e2e/support/site-objects.ts';
import { expectedPage, pageFiles, type BenchProject } from '../fixtures/e2e-projects.ts';

/** How long a preview may take to be served before the run gives up on it. */
const SERVED_TIMEOUT_MS = 600_000;
/** How often the host is asked (not the API server: Caddy on this machine). */
const LOOK_EVERY_MS = 100;

export interface PreviewBench {
  /** kubectl in the run's namespace; `input` goes to its stdin. */
  kubectl: (args: string[], input?: string) => Promise<{ stdout: string }>;
  apply: (objects: object[]) => Promise<unknown>;
  commit: (files: Record<string, string>, message: string, branch: string) => Promise<string>;
  hook: { url: string; secret: string };
  ingressPort: number;
}

/** Seconds from a pull request's opening, or a push to it, until its page is served. */
export async function previewTimes(
  bench: PreviewBench,
  project: BenchProject,
  namespace: string,
): Promise<{ opened: number; later: number; push: number }> {
  const { name } = project;
  await bench.apply([webService(name, project.base.port)]);
  await bench.kubectl([
    'patch',
    'project',
    name,
    '-n',
    namespace,
    '--type=merge',
    '-p',
    JSON.stringify({
      spec: {
        previews: { environmentRef: { name }, host: `pr-{number}.${name}.bench.test`, trigger: 'Always' },
      },
    }),
  ]);
  const time = async (number: number, action: string, version: string) => {
    const host = `pr-${number}.${name}.bench.test`;
    const branch = `${name}-pr-${number}`;
    const commit = await bench.commit(pageFiles(project, version), `${name} ${version}`, branch);
    const t0 = performance.now();
    const res = await githubPullRequest(bench.hook.url, bench.hook.secret, {
      action,
      number,
      branch,
      commit,
      labels: [],
    });
    if (res.status >= 300) throw new Error(`the gateway answered ${res.status} ${JSON.stringify(res.body)}`);
    const want = `200 ${expectedPage(project, version)}`;
    await waitFor(
      `${host} to serve ${version}`,
      async () => (await throughIngress(bench.ingressPort, host).catch(() => '')) === want || undefined,
      SERVED_TIMEOUT_MS,
      LOOK_EVERY_MS,
    );
    return (performance.now() - t0) / 1000;
  };
  const close = async (number: number) => {
    await githubPullRequest(bench.hook.url, bench.hook.secret, {
      action: 'closed',
      number,
      branch: `${name}-pr-${number}`,
      commit: '0'.repeat(40),
      labels: [],
    });
    await waitFor(
      `preview ${name}-pr-${number} to go`,
      async () => {
        const { stdout } = await bench.kubectl(['get', 'previews', '-n', namespace, '-o', 'name']);
        return !stdout.includes(`/${name}-pr-${number}\n`) || undefined;
      },
      SERVED_TIMEOUT_MS,
      250,
    );
  };
  const opened = await time(1, 'opened', 'pr-1');
  const push = await time(1, 'synchronize', 'pr-1b');
  await close(1);
  const later = await time(2, 'opened', 'pr-2');
  await close(2);
  return { opened, later, push };
}
