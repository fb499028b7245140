// Where a Project's reports go (spec.report): the provider, its report API and the repository as
// that API names it, or why they cannot go anywhere. One answer for the operator's report sinks
// and its look at open pull requests.
import type { ProjectObject } from '../crds/index.ts';
import type { Provider } from './provider.ts';
import { projectProvider, registry } from './registry.ts';
import { cleartextApi, type ReportApi, type ReportTarget } from './report.ts';

export interface ReportDestination {
  provider: Provider;
  report: ReportApi;
  target: ReportTarget;
}

/** Why a project's reports cannot be sent: its condition's reason and message. */
export interface NotReportable {
  reason: 'NotReportable';
  message: string;
}

export function reportDestination(project: ProjectObject): ReportDestination | NotReportable {
  const provider = projectProvider(project.spec);
  const notReportable = (message: string): NotReportable => ({ reason: 'NotReportable', message });
  if (!provider)
    return notReportable(
      `the provider of ${project.spec.repository?.url ?? 'the repository'} is not known: set spec.provider`,
    );
  const report = registry[provider].report;
  const target = report.target(project.spec.repository?.url ?? '', project.spec.report?.apiUrl);
  if (typeof target === 'string') return notReportable(target);
  if (cleartextApi(target.apiUrl))
    return notReportable(
      `the token is sent only over https, and ${target.apiUrl} is not (set spec.report.apiUrl to the https:// API)`,
    );
  return { provider, report, target };
}
