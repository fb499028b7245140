// What a failed BuildKit build said, read from the end of buildctl's output (the build
// container's termination message). On a failed RUN, buildctl repeats the step's last output
// between two "------" lines, then a Dockerfile excerpt and the error:
//
//   ------
//    > [build 4/5] RUN ["/bin/sh","-c", …]:
//   0.212     - Root composer.json requires example/missing, it could not be found …
//   ------
//   Dockerfile:7
//   …
//   error: failed to solve: process "/bin/sh -c … $SLIPWAY_STEP_1 …" did not complete successfully: exit code: 2
//
// The step's own lines are what a person needs; the excerpt repeats our generated Dockerfile.

export interface FailedBuildStep {
  /** Whose step failed: an install command (spec.buildSteps.install.commands) or a build step. */
  phase: 'install' | 'build';
  /** 1-based number of the step in its list, when it was one of the bundle's. */
  step: number | undefined;
  exitCode: number | undefined;
  /** The step's last output lines, timestamps and indentation removed, blank lines dropped. */
  lines: string[];
}

const BLOCK_EDGE = '------';
/** buildctl's prefix of a log line: the step number (live progress) and seconds since it began. */
const ELAPSED = /^(#\d+ )?\d+\.\d+ ?/;

export function failedBuildStep(output: string): FailedBuildStep | undefined {
  const all = output.split('\n').map((line) => line.trimEnd());
  const error = all.findLast((line) => line.startsWith('error: failed to solve: process '));
  if (!error) return undefined;
  const end = all.lastIndexOf(BLOCK_EDGE);
  const start = end > 0 ? all.lastIndexOf(BLOCK_EDGE, end - 1) : -1;
  // Without the opening edge (cut off by the size limit) the block starts at the top.
  const block = end >= 0 ? all.slice(start + 1, end) : [];
  const lines = block
    .filter((line) => !line.startsWith(' > ['))
    .map((line) => line.replace(ELAPSED, '').trim())
    .filter(Boolean);
  const [, phase, step] = /\$SLIPWAY_(INSTALL|STEP)_(\d+)/.exec(error) ?? [];
  const exitCode = /exit code: (\d+)\s*$/.exec(error)?.[1];
  return {
    phase: phase === 'INSTALL' ? 'install' : 'build',
    step: step === undefined ? undefined : Number(step),
    exitCode: exitCode === undefined ? undefined : Number(exitCode),
    lines,
  };
}
