// Small object builders for tests (as cert-manager's test/unit/gen): valid by default,
// changed with a partial spec where a test needs something else.
import { API_VERSION } from '../../crds/index.ts';

type Spec = Record<string, unknown>;

function object(kind: string, namespace: string, name: string, spec: Spec) {
  return { apiVersion: API_VERSION, kind, metadata: { name, namespace }, spec };
}

export const project = (namespace: string, name: string, spec: Spec = {}) =>
  object('Project', namespace, name, spec);

export const environment = (namespace: string, name: string, spec: Spec = {}) =>
  object('Environment', namespace, name, {
    projectRef: { name: 'shop' },
    deploymentRef: { name: 'shop-web' },
    ...spec,
  });

export const webhook = (namespace: string, name: string, spec: Spec = {}) =>
  object('Webhook', namespace, name, {
    projectRef: { name: 'shop' },
    branch: 'main',
    matchMode: 'Exact',
    ...spec,
  });

export const manualBundle = (namespace: string, name: string, spec: Spec = {}) =>
  object('Bundle', namespace, name, {
    projectRef: { name: 'shop' },
    source: { git: { commit: 'a'.repeat(40), branch: 'main' } },
    comment: 'First manual build',
    baseSoftware: { image: 'php:8.3-fpm' },
    directoryMap: { web: 'web', config: 'config', templates: 'templates' },
    trigger: { type: 'Manual' },
    ...spec,
  });

export const statusPage = (namespace: string, name = 'status', spec: Spec = {}) =>
  object('StatusPage', namespace, name, {
    name: 'Example Status',
    url: 'https://status.example.com',
    ...spec,
  });

export const statusComponent = (namespace: string, name: string, spec: Spec = {}) =>
  object('StatusComponent', namespace, name, {
    name,
    description: `${name} service`,
    state: 'operational',
    ...spec,
  });

export const statusNotice = (namespace: string, name: string, spec: Spec = {}) =>
  object('StatusNotice', namespace, name, {
    type: 'unplanned',
    subject: 'Elevated error rates',
    updates: [{ state: 'investigating', content: 'We are looking into it.', at: '2026-01-02T03:04:05.000Z' }],
    ...spec,
  });
