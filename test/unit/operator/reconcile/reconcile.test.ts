import { describe, expect, it } from '@jest/globals';
import { KeyedMutex } from '../../../../operator/reconcile/keyed-mutex.ts';
import { canonical, mergePatched, statusDiffers } from '../../../../operator/reconcile/status.ts';
import { deferred, flush } from '../../../support/fake-clock.ts';

describe('KeyedMutex', () => {
  it('runs sections of one key one after another, and of different keys side by side', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const gate = deferred();
    const first = mutex.run('p', async () => {
      log.push('p1 start');
      await gate.promise;
      log.push('p1 end');
    });
    const second = mutex.run('p', async () => {
      log.push('p2');
    });
    const other = mutex.run('q', async () => {
      log.push('q');
    });
    await flush();
    expect(log).toEqual(['p1 start', 'q']);
    gate.resolve();
    await Promise.all([first, second, other]);
    expect(log).toEqual(['p1 start', 'q', 'p1 end', 'p2']);
  });

  it('runAll holds every key: a section waits for any holder of one of them, not for the others', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const gate = deferred();
    const build = mutex.run('builds', async () => {
      log.push('build start');
      await gate.promise;
      log.push('build end');
    });
    const both = mutex.runAll(['deploy-a', 'builds'], async () => log.push('a'));
    const other = mutex.runAll(['deploy-b'], async () => log.push('b'));
    const none = mutex.runAll([], async () => log.push('none'));
    await flush();
    expect([...log].sort()).toEqual(['b', 'build start', 'none']);
    gate.resolve();
    await Promise.all([build, both, other, none]);
    expect(log.slice(3)).toEqual(['build end', 'a']);
  });

  it('releases the key when a section throws', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('p', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(mutex.run('p', async () => 'next')).resolves.toBe('next');
  });
});

describe('statusDiffers', () => {
  it('ignores key order, sees changed values, and treats null as "remove"', () => {
    const current = { phase: 'Built', backup: { job: 'j', location: 'l' } };
    expect(statusDiffers(current, { backup: { location: 'l', job: 'j' }, phase: 'Built' })).toBe(false);
    expect(statusDiffers(current, { phase: 'Ready' })).toBe(true);
    expect(statusDiffers(current, { webhook: null })).toBe(false);
    expect(statusDiffers(current, { phase: null })).toBe(true);
    expect(canonical({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
    // Nested objects merge as the API server merges them: a nested null removes a field.
    const deployed = { lastDeployment: { bundle: 'b0', result: 'Succeeded', finishedAt: 't0' } };
    expect(statusDiffers(deployed, { lastDeployment: { bundle: 'b0' } })).toBe(false);
    expect(
      statusDiffers(deployed, { lastDeployment: { bundle: 'b1', result: 'InProgress', finishedAt: null } }),
    ).toBe(true);
    expect(
      statusDiffers({ lastDeployment: { bundle: 'b1' } }, { lastDeployment: { finishedAt: null } }),
    ).toBe(false);
    expect(mergePatched(deployed, { lastDeployment: { bundle: 'b1', finishedAt: null } })).toEqual({
      lastDeployment: { bundle: 'b1', result: 'Succeeded' },
    });
  });
});
