// The build container's script, run for real by /bin/sh and awk, with a stand-in for
// buildctl-daemonless.sh that prints what BuildKit prints (plain progress) and exits as told.
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUILD_SCRIPT } from '../../../operator/bundle/jobs.ts';

const run = promisify(execFile);

// As BuildKit v0.34 printed a build whose install was cached (the vertex names show the
// commands with the build-args put in).
const PROGRESS = String.raw`#1 [internal] load build definition from Dockerfile
#1 DONE 0.0s
#9 [install 3/7] COPY [composer.json,/src/composer.json]
#9 CACHED
#12 [install 4/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer install --no-dev\"; exec /bin/sh -c \"composer install --no-dev\""]
#12 CACHED
#12 [install 4/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer install --no-dev\"; exec /bin/sh -c \"composer install --no-dev\""]
#12 extracting sha256:7a6488bfc55dd5004ec6b4309353ab66f9a8ce2ca8f36be7031d042b44d546fe 7.8s done
#12 DONE 8.0s
#13 [build 1/3] COPY . .
#13 DONE 0.0s
#14 [build 2/3] RUN ["/bin/sh","-c","printf '+ %s\\n' \"php bin/build-assets\"; exec /bin/sh -c \"php bin/build-assets\""]
#14 0.056 + php bin/build-assets
#14 DONE 0.1s
#15 [install 5/7] RUN ["/bin/sh","-c","printf '+ %s\\n' \"composer dump-autoload\"; exec /bin/sh -c \"composer dump-autoload\""]
#15 0.120 + composer dump-autoload
#15 DONE 0.2s
`;

async function runScript(exitCode: number): Promise<{ stdout: string; code: number; args: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'slipway-build-script-'));
  try {
    await writeFile(join(dir, 'progress'), PROGRESS);
    const fake = join(dir, 'buildctl-daemonless.sh');
    await writeFile(
      fake,
      `#!/bin/sh\nprintf '%s\\n' "$*" > "${dir}/args"\ncat "${dir}/progress" >&2\nexit ${exitCode}\n`,
    );
    await chmod(fake, 0o755);
    const env = { PATH: `${dir}:${process.env.PATH}`, TMPDIR: dir };
    const result = await run('/bin/sh', ['-c', BUILD_SCRIPT, 'build', 'build', '--opt', 'a b'], { env }).then(
      (r) => ({ stdout: r.stdout, code: 0 }),
      (e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code }),
    );
    return { ...result, args: await readFile(join(dir, 'args'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the build script', () => {
  it('passes buildctl its arguments and its output, and says which install steps were cached', async () => {
    const { stdout, code, args } = await runScript(0);
    expect(code).toBe(0);
    expect(args).toBe('build --opt a b\n');
    const lines = stdout.split('\n');
    // Every line of BuildKit's output, in order, plus one line after the cached install step.
    expect(lines.filter((l) => !l.includes('cached:'))).toEqual(PROGRESS.split('\n'));
    // Once, after the RUN's CACHED line: not for the cached COPY, not for the install that ran.
    expect(lines.filter((l) => l.includes('cached:'))).toEqual([
      '#12 install cached: its files, commands, variables and image are those of an earlier build',
    ]);
    expect(lines.indexOf('#12 CACHED')).toBe(lines.findIndex((l) => l.includes('cached:')) - 1);
  });

  it("exits with buildctl's status", async () => {
    const { stdout, code } = await runScript(3);
    expect(code).toBe(3);
    expect(stdout).toContain('#15 DONE 0.2s');
  });
});
