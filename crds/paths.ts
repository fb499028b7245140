import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the generated CRD YAML lives: the Helm chart's crds/ folder, its only copy. */
export const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'charts', 'slipway', 'crds');
