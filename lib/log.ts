// One JSON logger per process. Secrets never reach it: the redact list is a last line of defence.
import { pino, type Logger } from 'pino';

export const logger: Logger = pino({
  level: process.env.SLIPWAY_LOG_LEVEL ?? 'info',
  base: { process: process.env.SLIPWAY_PROCESS ?? undefined },
  timestamp: pino.stdTimeFunctions.isoTime,
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
});

export function childLogger(bindings: Record<string, unknown>): Logger {
  return logger.child(bindings);
}

export type { Logger };
