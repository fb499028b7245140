// The build Job's scripts, run for real by /bin/sh and awk: the build container's, with a
// stand-in for buildctl-daemonless.sh that prints what BuildKit prints (plain progress) and
// exits as told, and the fetch step's check of the install files on a real directory.
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INSTALL_FILES_CHECK } from '../../../../operator/jobs/build-scripts.ts';
import { runBuildScript, storeChoiceCases, SYSTEM_SHELL } from '../../../support/build-script.ts';

const run = promisify(execFile);

// As BuildKit v0.34 printed builds on the real node (the vertex names show the commands with the
// build-args put in): #12, an install step reused from the cache ("CACHED", then its layers
// fetched); #13, one reused whose layers were fetched at once (no "CACHED" line); #15, one that
// ran (its "+ command" line); #14, a build step.
const PROGRESS = String.raw`#1 [internal] load build definition from Dockerfile
#1 DONE 0.0s
#9 [install 3/7] COPY [composer.json,/src/composer.json]
#9 CACHED
#12 [install 4/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer install --no-dev\"; exec /bin/sh -c \"composer install --no-dev\""]
#12 CACHED
#12 [install 4/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer install --no-dev\"; exec /bin/sh -c \"composer install --no-dev\""]
#12 extracting sha256:7a6488bfc55dd5004ec6b4309353ab66f9a8ce2ca8f36be7031d042b44d546fe 7.8s done
#12 DONE 8.0s
#13 [install 5/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer dump-autoload\"; exec /bin/sh -c \"composer dump-autoload\""]
#13 sha256:bbd6107e9cd4229a48b0a3b10b07cce1e966271eda59b9c6943c0afe2df61452 75.25MB / 75.25MB 0.1s done
#13 extracting sha256:bbd6107e9cd4229a48b0a3b10b07cce1e966271eda59b9c6943c0afe2df61452 5.9s done
#13 DONE 6.1s
#13 [install 5/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer dump-autoload\"; exec /bin/sh -c \"composer dump-autoload\""]
#13 DONE 6.4s
#14 [build 2/3] RUN ["/bin/sh","-c","printf '+ %s\\n' \"php bin/build-assets\"; exec /bin/sh -c \"php bin/build-assets\""]
#14 DONE 0.1s
#15 [install 6/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"npm ci\"; exec /bin/sh -c \"npm ci\""]
#15 0.120 + npm ci
#15 1.020 added 10 packages in 1s
#15 DONE 1.2s
`;

/** Runs the script under /bin/sh; each buildctl call prints PROGRESS and exits with the next code. */
const runScript = (env: Record<string, string>, codes?: number[]) =>
  runBuildScript({ env, progress: PROGRESS, codes });

const CACHE = {
  CACHE_FROM: 'type=registry,ref=registry.test/team/shop:build_cache.production',
  CACHE_TO: 'type=local,dest=/image/cache,mode=max',
};
const told = (n: string) =>
  `#${n} install cached: its files, commands, variables and image are those of an earlier build`;

describe('the build script', () => {
  it('without an install phase, runs buildctl once with its arguments and the output, and passes its output on', async () => {
    const { stdout, code, calls } = await runScript({});
    expect(code).toBe(0);
    expect(calls).toEqual(['build --opt a b --output type=oci,dest=/image/layout']);
    expect(stdout.split('\n')).toEqual(PROGRESS.split('\n'));
  });

  it('with one, builds the image with the cache, then exports the install stage alone', async () => {
    const { stdout, code, calls } = await runScript(CACHE);
    expect(code).toBe(0);
    expect(calls).toEqual([
      'build --opt a b --import-cache type=registry,ref=registry.test/team/shop:build_cache.production --output type=oci,dest=/image/layout',
      'build --opt a b --opt target=install --import-cache type=registry,ref=registry.test/team/shop:build_cache.production --export-cache type=local,dest=/image/cache,mode=max',
    ]);
    const lines = stdout.split('\n');
    // The image's pass: each reused install step told once, where BuildKit first says it is
    // done; not the cached COPY, the build step, or the install step that ran. The export's pass
    // (the install stage cached by then) tells nothing.
    expect(lines.filter((l) => l.includes('cached:'))).toEqual([told('12'), told('13')]);
    expect(lines[lines.indexOf(told('12')) - 1]).toBe('#12 CACHED');
    expect(lines[lines.indexOf(told('13')) - 1]).toBe('#13 DONE 6.1s');
    expect(
      lines.filter(
        (l) => !l.includes('cached:') && !l.startsWith('building the') && !l.startsWith('exporting the'),
      ),
    ).toEqual([...PROGRESS.split('\n').slice(0, -1), ...PROGRESS.split('\n')]);
    expect(lines).toContain(
      "building the image, with the install stage's cache registry.test/team/shop:build_cache.production",
    );
  });

  it("stops with buildctl's status at the first pass that fails", async () => {
    const first = await runScript(CACHE, [3, 0]);
    expect(first.code).toBe(3);
    expect(first.calls).toHaveLength(1);
    expect(first.stdout).toContain('#15 DONE 1.2s');
    const second = await runScript(CACHE, [0, 4]);
    expect(second.code).toBe(4);
    expect(second.calls).toHaveLength(2);
  });
});

describe('the build script with a store on the node (/bin/sh)', () => {
  storeChoiceCases(SYSTEM_SHELL);
});

describe('the install files check', () => {
  const check = async (files: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'slipway-install-files-'));
    try {
      await writeFile(join(dir, 'composer.json'), '{}');
      await mkdir(join(dir, 'packages'));
      return await run('/bin/sh', ['-c', `set -eu\n${INSTALL_FILES_CHECK}\necho ok`], {
        env: { PATH: process.env.PATH, SRC: dir, INSTALL_FILES: files },
      }).then(
        (r) => ({ code: 0, out: r.stdout, err: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({
          code: e.code,
          out: e.stdout,
          err: e.stderr,
        }),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('passes when every listed file or directory is in the source', async () => {
    expect(await check('composer.json\npackages')).toEqual({ code: 0, out: 'ok\n', err: '' });
    expect((await check('')).code).toBe(0);
  });

  it('names the first missing one and stops the fetch step', async () => {
    expect(await check('composer.json\ncomposer.lock\npackages')).toEqual({
      code: 1,
      out: '',
      err: 'spec.buildSteps.install.files: composer.lock is not in the source\n',
    });
  });
});
