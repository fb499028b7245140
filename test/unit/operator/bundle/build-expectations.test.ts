import { describe, expect, it } from '@jest/globals';
import { BuildExpectations, EXPECTATION_TTL_MS } from '../../../../operator/bundle/build-expectations.ts';

const none = () => false;

describe('BuildExpectations (build Jobs created and not yet in the cache)', () => {
  it('names what was expected per project until it is forgotten', () => {
    const e = new BuildExpectations(() => 0);
    e.expect('team/shop', 'b1-build');
    e.expect('team/shop', 'b2-build');
    e.expect('team/blog', 'p1-build');
    expect(e.pending('team/shop', none)).toEqual(['b1-build', 'b2-build']);
    e.forget('team/shop', 'b1-build');
    expect(e.pending('team/shop', none)).toEqual(['b2-build']);
    expect(e.pending('team/blog', none)).toHaveLength(1);
    expect(e.pending('other/shop', none)).toHaveLength(0);
  });

  it('leaves out what the caller already counts (its own Job, Jobs the cache shows)', () => {
    const e = new BuildExpectations(() => 0);
    e.expect('team/shop', 'b1-build');
    e.expect('team/shop', 'b2-build');
    expect(e.pending('team/shop', (job) => job === 'b1-build')).toEqual(['b2-build']);
  });

  it('stops counting an expectation the cache never confirms after the TTL', () => {
    let now = 0;
    const e = new BuildExpectations(() => now);
    e.expect('team/shop', 'b1-build');
    now = EXPECTATION_TTL_MS - 1;
    expect(e.pending('team/shop', none)).toHaveLength(1);
    now = EXPECTATION_TTL_MS + 1;
    expect(e.pending('team/shop', none)).toHaveLength(0);
  });
});
