import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The generated CRD YAML, plain, for `kubectl apply -f deploy/crds/` and for GitOps tools. */
export const CRD_DIR = join(ROOT, 'deploy', 'crds');

/** The admission policies (crds/admission.ts), for `kubectl apply -f deploy/admission/`. */
export const ADMISSION_DIR = join(ROOT, 'deploy', 'admission');

/** The same policies as Helm templates (`admissionPolicies.enabled`). */
export const CHART_ADMISSION_DIR = join(ROOT, 'charts', 'slipway', 'templates', 'admission');

/** The same CRDs as Helm templates (installed and upgraded with the release, `crds.enabled`). */
export const CHART_CRD_DIR = join(ROOT, 'charts', 'slipway', 'templates', 'crds');
