// msteams: a Teams incoming-webhook message holding an Adaptive Card (Workflows and connectors).
import { severityOf } from '../bundle-ending.ts';
import { details, headline } from '../facts.ts';
import type { NotificationFormat } from './format.ts';

export const msteams: NotificationFormat = {
  body(facts) {
    return {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              {
                type: 'TextBlock',
                text: headline(facts),
                weight: 'Bolder',
                size: 'Medium',
                wrap: true,
                ...(severityOf(facts.event) === 'error' ? { color: 'Attention' } : {}),
              },
              ...(facts.message ? [{ type: 'TextBlock', text: facts.message, wrap: true }] : []),
              { type: 'FactSet', facts: details(facts).map(([title, value]) => ({ title, value })) },
            ],
            ...(facts.url
              ? { actions: [{ type: 'Action.OpenUrl', title: 'Open the bundle', url: facts.url }] }
              : {}),
          },
        },
      ],
    };
  },
};
