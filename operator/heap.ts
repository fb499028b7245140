// Imported first by main.ts, before anything allocates much: keeps V8's young generation at its
// initial 1 MiB per semi-space (Node lets it grow to 16-32 MiB, depending on the memory the process
// sees, and it grows eagerly). With 5,000 finished bundles and their Jobs cached, the operator's
// heap held 205 MiB for 75 MiB of live objects; capped, about 100 MiB, at the cost of more, shorter
// scavenges. At run time only the growth factor takes effect (V8 sizes the young generation's
// maximum when the process starts), so it is set to 1: the young generation keeps the size it
// started with, as long as this runs before a large module graph loads (main.ts imports the
// operator after it). A semi-space size given in NODE_OPTIONS or on the command line wins.
import { setFlagsFromString } from 'node:v8';

const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) =>
  /^--(max[-_])?semi[-_]space/.test(arg),
);
if (!given) setFlagsFromString('--semi-space-growth-factor=1');
