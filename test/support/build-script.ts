// Runs the build container's script (operator/jobs/build-scripts.ts) for real, with a stand-in
// for buildctl-daemonless.sh that prints what BuildKit prints and exits as told. The cases of its
// choice of a store on the node are here too: the unit tier runs them under this machine's
// /bin/sh and tools, the e2e tier under BusyBox's sh and applets, as the default builder image
// (moby/buildkit:rootless, Alpine) runs the script.
import { expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUILD_SCRIPT } from '../../operator/jobs/build-scripts.ts';

const run = promisify(execFile);

/** How the script is run: the shell, and the directories of the tools it finds on PATH. */
export interface Shell {
  sh: string[];
  path: string;
}

export const SYSTEM_SHELL: Shell = { sh: ['/bin/sh'], path: process.env.PATH ?? '/usr/bin:/bin' };

export interface Run {
  stdout: string;
  code: number;
  /** The arguments of each buildctl-daemonless.sh call, one line each. */
  calls: string[];
  /** BUILDKITD_FLAGS as each call saw it. */
  flags: string[];
  /** Whether each call had file descriptor 9 (the store's lock) open. */
  lockFd: string[];
}

/**
 * Runs the script with `env`; each buildctl call prints `progress` and exits with the next of
 * `codes`. `under`: a command the script runs under (as `flock <file>`).
 */
export async function runBuildScript(options: {
  env: Record<string, string>;
  progress: string;
  codes?: number[];
  under?: string[];
  shell?: Shell;
}): Promise<Run> {
  const { env, progress, codes = [0, 0], under = [], shell = SYSTEM_SHELL } = options;
  const dir = await mkdtemp(join(tmpdir(), 'slipway-build-script-'));
  try {
    await writeFile(join(dir, 'progress'), progress);
    await writeFile(join(dir, 'codes'), codes.join('\n') + '\n');
    const fake = join(dir, 'buildctl-daemonless.sh');
    await writeFile(
      fake,
      `#!/bin/sh\nprintf '%s\\n' "$*" >> "${dir}/calls"\nprintf '%s\\n' "$BUILDKITD_FLAGS" >> "${dir}/flags"\n` +
        `if [ -e /proc/$$/fd/9 ]; then echo open; else echo closed; fi >> "${dir}/fd"\n` +
        `cat "${dir}/progress" >&2\n` +
        `code=$(head -n 1 "${dir}/codes"); sed -i 1d "${dir}/codes"; exit "$code"\n`,
    );
    await chmod(fake, 0o755);
    const [command, ...args] = [...under, ...shell.sh, '-c', BUILD_SCRIPT, 'build', 'build', '--opt', 'a b'];
    const result = await run(command!, args, {
      env: {
        PATH: `${dir}:${shell.path}`,
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
      (await readFile(join(dir, file), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    return { ...result, calls: await lines('calls'), flags: await lines('flags'), lockFd: await lines('fd') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const BUILT = '#1 DONE 0.0s\n';
const ONE_PASS = 'build --opt a b --output type=oci,dest=/image/layout';

/** Runs `test` with a new, empty store directory, removed after. */
export async function withStore(test: (store: string) => Promise<void>): Promise<void> {
  const store = await mkdtemp(join(tmpdir(), 'slipway-build-store-'));
  try {
    await test(store);
  } finally {
    await rm(store, { recursive: true, force: true });
  }
}

/** The cases of the store's choice, under `shell`. */
export function storeChoiceCases(shell: Shell): void {
  const build = (env: Record<string, string>, under?: string[]) =>
    runBuildScript({ env, progress: BUILT, codes: [0], under, shell });

  it("gives BuildKit the store as its root, kept under its size by BuildKit's own collection; only the script holds the lock", () =>
    withStore(async (store) => {
      const { stdout, code, calls, flags, lockFd } = await build({
        BUILD_STORE: store,
        BUILD_STORE_KEEP_MB: '512',
      });
      expect(code).toBe(0);
      expect(calls).toEqual([ONE_PASS]);
      expect(flags).toEqual([
        `--oci-worker-no-process-sandbox --root=${store}/buildkit --oci-worker-gc-keepstorage=0,0,512`,
      ]);
      expect(lockFd).toEqual(['closed']);
      expect(stdout.split('\n')[0]).toBe(
        "building in this node's store of the project's environment (kept under 512 MB)",
      );
    }));

  it('builds from the empty store of the pod while another build holds the lock', () =>
    withStore(async (store) => {
      await writeFile(join(store, 'lock'), '');
      const { stdout, code, calls, flags } = await build({ BUILD_STORE: store, BUILD_STORE_KEEP_MB: '512' }, [
        'flock',
        join(store, 'lock'),
      ]);
      expect(code).toBe(0);
      expect(stdout.split('\n')[0]).toBe(
        "another build of the project's environment holds this node's store: building from an empty one",
      );
      expect(calls).toEqual([ONE_PASS]);
      expect(flags).toEqual(['--oci-worker-no-process-sandbox']);
    }));

  it('builds from an empty store when the store cannot be written or its disk is short of space', () =>
    withStore(async (store) => {
      const missing = await build({ BUILD_STORE: join(store, 'missing'), BUILD_STORE_KEEP_MB: '512' });
      expect(missing.code).toBe(0);
      expect(missing.stdout.split('\n')[0]).toBe(
        "this node's store is not writable by the build: building from an empty one",
      );
      expect(missing.flags).toEqual(['--oci-worker-no-process-sandbox']);
      // More than any disk here has free.
      const short = await build({ BUILD_STORE: store, BUILD_STORE_KEEP_MB: '999999999999' });
      expect(short.code).toBe(0);
      expect(short.stdout.split('\n')[0]).toMatch(
        /^this node's store has \d+ MB free, less than the 999999999999 MB it may keep: building from an empty one$/,
      );
      expect(short.flags).toEqual(['--oci-worker-no-process-sandbox']);
    }));

  it('goes on when its lock cannot be opened (a directory in its place)', () =>
    withStore(async (store) => {
      await mkdir(join(store, 'lock'));
      const { code, calls, stdout } = await build({ BUILD_STORE: store, BUILD_STORE_KEEP_MB: '512' });
      expect(code).toBe(0);
      expect(calls).toEqual([ONE_PASS]);
      expect(stdout.split('\n')[0]).toBe(
        "this node's store is not writable by the build: building from an empty one",
      );
    }));
}
