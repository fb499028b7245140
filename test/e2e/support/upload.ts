// The gateway's upload.sh as CI runs it: fetched from the gateway, run with sh over a folder
// whose web/index.html is the given page, the project's secret on standard input.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './chain.ts';

/** Starts the upload; it ends once the bundle is built, backed up and rolled out (or failed). */
export async function runUploadScript(
  gatewayUrl: string,
  slug: string,
  secret: string,
  page: string,
): Promise<{ stdout: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'slipway-e2e-upload-'));
  mkdirSync(join(dir, 'web'));
  writeFileSync(join(dir, 'web', 'index.html'), page);
  const script = join(dir, 'upload.sh');
  writeFileSync(script, await (await fetch(`${gatewayUrl}/upload.sh`)).text());
  const upload = run('sh', [
    script,
    slug,
    '-',
    'c0ffee0000000000000000000000000000000003',
    dir,
    'Uploaded from CI',
    'main',
  ]);
  upload.child.stdin!.end(`${secret}\n`);
  try {
    return { stdout: (await upload).stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
