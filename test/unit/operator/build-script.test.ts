// The build Job's scripts, run for real by /bin/sh and awk: the build container's, with a
// stand-in for buildctl-daemonless.sh that prints what BuildKit prints (plain progress) and
// exits as told, and the fetch step's check of the install files on a real directory.
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUILD_SCRIPT, INSTALL_FILES_CHECK } from '../../../operator/bundle/build-scripts.ts';

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

interface Run {
  stdout: string;
  code: number;
  /** The arguments of each buildctl-daemonless.sh call, one line each. */
  calls: string[];
  /** BUILDKITD_FLAGS as each call saw it. */
  flags: string[];
}

/**
 * Runs the script with `env`; each buildctl call prints PROGRESS (a prune, a total) and exits
 * with the next code. `under`: a command the script runs under (as `flock <file>`).
 */
async function runScript(
  env: Record<string, string>,
  codes: number[] = [0, 0, 0],
  under: string[] = [],
): Promise<Run> {
  const dir = await mkdtemp(join(tmpdir(), 'slipway-build-script-'));
  try {
    await writeFile(join(dir, 'progress'), PROGRESS);
    await writeFile(join(dir, 'codes'), codes.join('\n') + '\n');
    const fake = join(dir, 'buildctl-daemonless.sh');
    await writeFile(
      fake,
      `#!/bin/sh\nprintf '%s\\n' "$*" >> "${dir}/calls"\nprintf '%s\\n' "$BUILDKITD_FLAGS" >> "${dir}/flags"\n` +
        `if [ "$1" = prune ]; then printf 'ID\\tRECLAIMABLE\\tSIZE\\nabc\\ttrue\\t1.2GB\\nTotal:\\t1.2GB\\n'; else cat "${dir}/progress" >&2; fi\n` +
        `code=$(head -n 1 "${dir}/codes"); sed -i 1d "${dir}/codes"; exit "$code"\n`,
    );
    await chmod(fake, 0o755);
    const [command, ...args] = [...under, '/bin/sh', '-c', BUILD_SCRIPT, 'build', 'build', '--opt', 'a b'];
    const result = await run(command!, args, {
      env: {
        PATH: `${dir}:${process.env.PATH}`,
        TMPDIR: dir,
        BUILD_OUTPUT: 'type=oci,dest=/image/layout',
        BUILDKITD_FLAGS: '--oci-worker-no-process-sandbox',
        ...env,
      },
    }).then(
      (r) => ({ stdout: r.stdout, code: 0 }),
      (e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code }),
    );
    const lines = async (file: string) =>
      (await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean);
    return { ...result, calls: await lines('calls'), flags: await lines('flags') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

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

describe('the build script with a store on the node', () => {
  const withStore = async (test: (store: string) => Promise<void>) => {
    const store = await mkdtemp(join(tmpdir(), 'slipway-build-store-'));
    try {
      await test(store);
    } finally {
      await rm(store, { recursive: true, force: true });
    }
  };

  it('gives BuildKit the store as its root for every pass, then prunes it to the size kept', () =>
    withStore(async (store) => {
      const { stdout, code, calls, flags } = await runScript({
        ...CACHE,
        BUILD_STORE: store,
        BUILD_STORE_KEEP_MB: '512',
      });
      expect(code).toBe(0);
      expect(calls).toHaveLength(3);
      expect(calls[2]).toBe('prune --keep-storage 512');
      expect(flags).toEqual(Array(3).fill(`--oci-worker-no-process-sandbox --root=${store}/buildkit`));
      const lines = stdout.split('\n');
      expect(lines[0]).toBe("building in this node's store of the project's environment");
      expect(lines.at(-2)).toBe('store pruned to 512 MB: 1.2GB freed');
    }));

  it('builds from the empty store of the pod while another build holds the lock', () =>
    withStore(async (store) => {
      await writeFile(join(store, 'lock'), '');
      const { stdout, code, calls, flags } = await runScript(
        { BUILD_STORE: store, BUILD_STORE_KEEP_MB: '512' },
        [0],
        ['flock', join(store, 'lock')],
      );
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toBe(
        "another build of the project's environment holds this node's store: building from an empty one",
      );
      expect(calls).toEqual(['build --opt a b --output type=oci,dest=/image/layout']);
      expect(flags).toEqual(['--oci-worker-no-process-sandbox']);
    }));

  it('prunes at most once an hour', () =>
    withStore(async (store) => {
      const build = async () =>
        (await runScript({ BUILD_STORE: store, BUILD_STORE_KEEP_MB: '512' }, [0, 0])).calls.map(
          (c) => c.split(' ')[0],
        );
      expect(await build()).toEqual(['build', 'prune']);
      expect(await build()).toEqual(['build']);
      const hourAgo = new Date(Date.now() - 61 * 60_000);
      await utimes(join(store, 'pruned'), hourAgo, hourAgo);
      expect(await build()).toEqual(['build', 'prune']);
    }));

  it('keeps the built image when the prune fails', () =>
    withStore(async (store) => {
      const { stdout, code, calls } = await runScript(
        { BUILD_STORE: store, BUILD_STORE_KEEP_MB: '512' },
        [0, 1],
      );
      expect(code).toBe(0);
      expect(calls).toHaveLength(2);
      expect(stdout.split('\n').slice(-2)).toEqual(['failed to prune the store', '']);
    }));
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
