// discord: a Discord webhook message (discord.com/developers/docs/resources/webhook#execute-webhook)
// with one embed: the headline linked to the bundle, the message, the facts as inline fields, a
// green or red bar. Mentions are never parsed: a commit message saying @everyone pings nobody.
// Embed limits: title 256, description 4096, field value 1024 characters.
import { severityOf } from '../bundle-ending.ts';
import { details, headline } from '../facts.ts';
import type { NotificationFormat } from './format.ts';

const GREEN = 0x2eb886;
const RED = 0xd40e0d;
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export const discord: NotificationFormat = {
  body(facts) {
    return {
      username: 'Slipway',
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: clip(headline(facts), 256),
          ...(facts.url ? { url: facts.url } : {}),
          ...(facts.message ? { description: clip(facts.message, 4096) } : {}),
          color: severityOf(facts.event) === 'error' ? RED : GREEN,
          fields: details(facts).map(([name, value]) => ({ name, value: clip(value, 1024), inline: true })),
          timestamp: facts.time,
          footer: { text: 'Slipway' },
        },
      ],
    };
  },
};
