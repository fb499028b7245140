// Log lines as collectors read them: JSON, the level as a word, secrets redacted.
import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { LOG_OPTIONS } from '../../../lib/log.ts';

function lines(write: (log: pino.Logger) => void): Array<Record<string, unknown>> {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk.toString());
      done();
    },
  });
  write(pino({ ...LOG_OPTIONS, level: 'info' }, sink));
  return out
    .join('')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('the log', () => {
  it('writes the level as a word, an ISO time, and redacts secrets', () => {
    const [info, warn] = lines((log) => {
      log.info({ token: 'hunter2' }, 'started');
      log.warn('slow');
    });
    expect(info).toMatchObject({ level: 'info', msg: 'started', token: '[redacted]' });
    expect(info!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(warn).toMatchObject({ level: 'warn', msg: 'slow' });
  });
});
