// How kubectl slipway tree draws a project's tree: kubectl-tree's branches, each object's kind,
// name and state.
import { describe, expect, it } from '@jest/globals';
import { drawTree } from '../../../../cli/commands/tree.ts';

describe('kubectl slipway tree', () => {
  it('draws each object under what made it, the last child of each branch closing it', () => {
    const leaf = (kind: string, name: string, state = '') => ({ kind, name, state, children: [] });
    const lines = drawTree({
      kind: 'Project',
      name: 'site',
      state: 'Ready=True WebhookReady',
      children: [
        leaf('Webhook', 'main', 'Ready=True Valid'),
        {
          kind: 'Environment',
          name: 'staging',
          state: 'Ready=True Valid Suspended',
          children: [
            {
              kind: 'Deployment',
              name: 'site-web',
              state: '1/1 ready',
              children: [leaf('Pod', 'site-web-1', 'Running')],
            },
          ],
        },
        {
          kind: 'Bundle',
          name: 'site-0a1b',
          state: 'Ready Succeeded',
          children: [leaf('Job', 'site-0a1b-backup', 'backup')],
        },
      ],
    });
    expect(lines).toEqual([
      'Project/site  Ready=True WebhookReady',
      '├── Webhook/main  Ready=True Valid',
      '├── Environment/staging  Ready=True Valid Suspended',
      '│   └── Deployment/site-web  1/1 ready',
      '│       └── Pod/site-web-1  Running',
      '└── Bundle/site-0a1b  Ready Succeeded',
      '    └── Job/site-0a1b-backup  backup',
    ]);
  });
});
