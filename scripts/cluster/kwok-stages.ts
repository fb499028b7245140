// What kwok's simulated kubelet does with pods, as kwokctl's configuration: kwok's own default
// stages (copied from its module by build.sh), with one addition. A build pod's push container
// reports the digest it pushed in its termination message (operator/jobs/build-job.ts); kwok's pods
// run nothing, so their push container reports the digest of nothing, as a real one would
// report the digest of what it pushed. (kwokctl uses its defaults only when the configuration
// names no stage, so all of them are here.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** sha256 of zero bytes: what a simulated push "pushed". */
const EMPTY_DIGEST = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const COMPLETED_AT = '            startedAt: {{ $now | Quote }}\n';

/** The kwokctl configuration of the local control plane: its API certificate and the stages. */
export function kwokctlConfig(binDir: string): string {
  const dir = join(binDir, '..', 'kwok-stages');
  const stages = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      if (f !== 'pod-complete.yaml') return text;
      if (!text.includes(COMPLETED_AT)) throw new Error(`kwok's pod-complete stage changed shape (${dir})`);
      return text.replace(
        COMPLETED_AT,
        // `crane push <layout> <image> …`: the image it would have pushed, by that digest.
        `${COMPLETED_AT}            {{ if eq $item.name "push" }}message: "{{ index $item.command 3 }}@${EMPTY_DIGEST}"{{ end }}\n`,
      );
    });
  // Pods reach the API server at the kubernetes Service's address (10.0.0.1, the first of the
  // default service range), so its certificate must name that address too.
  const options =
    'apiVersion: config.kwok.x-k8s.io/v1alpha1\nkind: KwokctlConfiguration\noptions:\n  kubeApiserverCertSANs: ["10.0.0.1"]\n';
  return [options, ...stages].join('---\n');
}
