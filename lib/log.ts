// One JSON logger per process. Secrets never reach it: the redact list is a last line of defence.
import { pino, type Logger } from 'pino';

/** How every process logs: JSON lines, the level as a word ("info", "warn"), ISO times, secrets redacted. */
export const LOG_OPTIONS: pino.LoggerOptions = {
  level: process.env.SLIPWAY_LOG_LEVEL ?? 'info',
  base: { process: process.env.SLIPWAY_PROCESS ?? undefined },
  timestamp: pino.stdTimeFunctions.isoTime,
  // Log collectors (Loki, Elasticsearch, Cloud Logging) read a word; pino's default is a number.
  formatters: { level: (label) => ({ level: label }) },
  redact: {
    paths: [
      'req.headers.authorization',
      'req.headers["x-hub-signature-256"]',
      'req.headers["x-gitlab-token"]',
      'secret',
      '*.secret',
      'token',
      '*.token',
    ],
    censor: '[redacted]',
  },
};

export const logger: Logger = pino(LOG_OPTIONS);

export function childLogger(bindings: Record<string, unknown>): Logger {
  return logger.child(bindings);
}

export type { Logger };
