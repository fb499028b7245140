// slack: a Slack incoming-webhook message, a linked line of text and a coloured attachment.
import { severityOf } from '../bundle-ending.ts';
import { details, headline } from '../facts.ts';
import type { NotificationFormat } from './format.ts';

/** Slack's text needs &, < and > escaped (its link syntax uses them). */
const slackEscape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export const slack: NotificationFormat = {
  body(facts) {
    const title = slackEscape(headline(facts));
    return {
      text: facts.url ? `<${facts.url}|${title}>` : title,
      attachments: [
        {
          color: severityOf(facts.event) === 'error' ? 'danger' : 'good',
          fallback: title,
          text: slackEscape(facts.message),
          fields: details(facts).map(([name, value]) => ({
            title: name,
            value: slackEscape(value),
            short: true,
          })),
          footer: 'Slipway',
          ts: Math.floor(Date.parse(facts.time) / 1000),
        },
      ],
    };
  },
};
