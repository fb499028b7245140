// The lint rule that keeps the processes apart (eslint.config.js), run the way `npm run lint`
// runs it, on code a contributor might write.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const eslint = new ESLint({ cwd: root });

async function boundaryErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it.each([
    ['operator/bundle/x.ts', "import { isWebhookToken } from '../../webhook-gateway/token.ts';"],
    ['operator/status-page/x.ts', "import { snapshot } from '../../status-api/model/snapshot.ts';"],
    ['webhook-gateway/x.ts', "import { loadConfig } from '../operator/config.ts';"],
    ['status-api/x.ts', "import { planBundles } from '../webhook-gateway/plan.ts';"],
    ['lib/x.ts', "import { Operator } from '../operator/operator.ts';"],
    ['crds/x.ts', "import { waitFor } from '../lib/wait.ts';"],
    ['crds/x.ts', "import { isNewer } from '../rules/bundle-order.ts';"],
    ['rules/x.ts', "import { waitFor } from '../lib/wait.ts';"],
    ['providers/x.ts', "import { planBundles } from '../webhook-gateway/plan.ts';"],
  ])('%s may not: %s', async (file, source) => {
    const errors = await boundaryErrors(file, `${source}\nexport const used = [];\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/may not import|depends on none|imports nothing of ours|imports crds\/ only/);
  });

  it.each([
    ['operator/bundle/x.ts', "import { signArchiveUrl } from '../../rules/archive-url.ts';"],
    ['webhook-gateway/http/x.ts', "import { waitFor } from '../../lib/wait.ts';"],
    ['status-api/model/x.ts', "import { noticeAt } from '../../rules/notice-timeline.ts';"],
    ['lib/x.ts', "import { kinds } from '../crds/index.ts';"],
    ['rules/x.ts', "import { kinds } from '../crds/index.ts';"],
    ['cli/commands/x.ts', "import { newBundle } from '../../rules/new-bundle.ts';"],
    ['scripts/x.ts', "import { loadConfig } from '../operator/config.ts';"],
  ])('%s may: %s', async (file, source) => {
    expect(await boundaryErrors(file, `${source}\nexport const used = [];\n`)).toEqual([]);
  });
});
