// The build container's script under BusyBox's sh and applets, as the default builder image
// (moby/buildkit:rootless, Alpine) runs it; the unit tier runs the same cases under /bin/sh
// (test/support/build-script.ts). BusyBox comes from the real node's packages (busybox-static),
// installed by this tier's setup. Debian's BusyBox has no flock applet, Alpine's has: the cases
// run with util-linux's flock beside the applets, and once without any.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuildScript, storeChoiceCases, withStore, type Shell } from '../support/build-script.ts';

const BUSYBOX = '/bin/busybox';
const applets = mkdtempSync(join(tmpdir(), 'slipway-busybox-'));
const withFlock = mkdtempSync(join(tmpdir(), 'slipway-flock-'));
const shell: Shell = { sh: [BUSYBOX, 'sh'], path: `${withFlock}:${applets}` };

beforeAll(() => {
  const list = execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const applet of list) symlinkSync(BUSYBOX, join(applets, applet));
  symlinkSync(
    execFileSync('sh', ['-c', 'command -v flock'], { encoding: 'utf8' }).trim(),
    join(withFlock, 'flock'),
  );
});

afterAll(() => {
  rmSync(applets, { recursive: true, force: true });
  rmSync(withFlock, { recursive: true, force: true });
});

describe('the build script with a store on the node (BusyBox sh and applets)', () => {
  storeChoiceCases(shell);

  it('builds from an empty store in an image without flock', () =>
    withStore(async (store) => {
      const { code, stdout, flags } = await runBuildScript({
        env: { BUILD_STORE: store, BUILD_STORE_KEEP_MB: '512' },
        progress: '#1 DONE 0.0s\n',
        codes: [0],
        shell: { sh: [BUSYBOX, 'sh'], path: applets },
      });
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toBe('the builder image has no flock: building from an empty store');
      expect(flags).toEqual(['--oci-worker-no-process-sandbox']);
    }));
});
