// Entry point: `node operator/main.ts`. Caps the heap's young generation (heap.ts), keeps V8's
// compiled code on disk, then starts the operator (start.ts).
//
// About 1,500 modules load at start (most of them @kubernetes/client-node's): 0.9-1 s, or
// 0.55-0.65 s when V8 reuses the code it compiled on an earlier start. The cache is
// NODE_COMPILE_CACHE, or else the system's temp directory: under the chart, the pod's /tmp
// emptyDir. Node writes it when the process exits (SIGTERM, a lost lease, a crash; not an OOM
// kill), so a restarted container starts warm; not during the start, where writing one file per
// module took 1.3 s and delayed readiness by as much. A cache that cannot be made is skipped.
// Static imports load before any code here runs, so the operator's own are imported after it.
import './heap.ts';
import { enableCompileCache } from 'node:module';

enableCompileCache();
await import('./start.ts');
