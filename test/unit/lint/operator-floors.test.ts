// The floors inside the operator (eslint.config.js, docs/architecture.md) as `npm run lint` holds
// them: a file placed where it does not belong is refused with the message saying where its code
// goes. ESLint runs on the project's own configuration, over text given a path in the operator.
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The no-restricted-imports messages for `code` placed at `path`. */
async function refusals(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${path}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the floors inside the operator', () => {
  it("refuses the delivery engine importing a kind's controller", async () => {
    expect(
      await refusals(
        'operator/delivery/new-helper.ts',
        "export { BundleLifecycle } from '../bundle/lifecycle.ts';\n",
      ),
    ).toEqual([expect.stringContaining('operator/delivery/ is the generic delivery engine')]);
  });

  it("refuses a kind's folder importing a sink", async () => {
    expect(
      await refusals(
        'operator/preview/new-helper.ts',
        "export { previewBook } from '../report/preview-book.ts';\n",
      ),
    ).toEqual([expect.stringContaining("a kind's folder imports no sink")]);
  });

  it("refuses operator/jobs/ importing a kind's settings", async () => {
    expect(
      await refusals(
        'operator/jobs/new-helper.ts',
        "export { buildSettingsProblem } from '../bundle/settings.ts';\n",
      ),
    ).toEqual([expect.stringContaining('operator/jobs/ builds Job manifests')]);
  });

  it('keeps the process boundary on those files, and lets what belongs through', async () => {
    expect(
      await refusals(
        'operator/delivery/new-helper.ts',
        "export { serve } from '../../status-api/server.ts';\n",
      ),
    ).toEqual([expect.stringContaining("may not import another process's internals")]);
    expect(
      await refusals(
        'operator/report/new-helper.ts',
        "export { lanePreview } from '../subjects/previews.ts';\n",
      ),
    ).toEqual([]);
    expect(
      await refusals('operator/preview/new-helper.ts', "export { attempt } from '../delivery/attempt.ts';\n"),
    ).toEqual([]);
  });
});
