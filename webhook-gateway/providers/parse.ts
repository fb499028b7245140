// Turns a verified delivery into branch changes or a reason to ignore it, one branch per provider.
import { parseAzureDevOps } from './azure-devops.ts';
import { parseBitbucket } from './bitbucket.ts';
import { parseGitHub } from './github.ts';
import { parseGitLab } from './gitlab.ts';
import {
  UnsupportedProviderError,
  type DeliverySource,
  type ParsedDelivery,
  type RequestHeaders,
} from './types.ts';

/** Throws MalformedPayloadError (400) or UnsupportedProviderError (400). */
export function parseDelivery(source: DeliverySource, headers: RequestHeaders, body: Buffer): ParsedDelivery {
  switch (source) {
    case 'github':
      return parseGitHub(headers, body);
    case 'gitlab':
      return parseGitLab(headers, body);
    case 'bitbucket':
      return parseBitbucket(headers, body);
    case 'azure-devops':
      return parseAzureDevOps(body);
    case 'bitbucket-server':
      // A 4xx rather than a 202: the provider's delivery log then shows the hook as failing, so the
      // user learns at the first test delivery that this setup can never build.
      throw new UnsupportedProviderError(
        'Bitbucket Server and Data Center are not supported; use Bitbucket Cloud, GitHub, GitLab, ' +
          'Azure DevOps or the upload script',
      );
  }
}
