import { describe, expect, it } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import { ActRefused, isRefusal } from '../../../../operator/bundle/refusal.ts';

const answer = (code: number, message = 'no') =>
  new ApiException(code, 'POST /apis/batch/v1/namespaces/shop/jobs', JSON.stringify({ message }), {});

describe('refusals of the operator’s own calls', () => {
  it.each([
    [400, true],
    [403, true],
    [413, true],
    [422, true],
    [401, false],
    [404, false],
    [408, false],
    [409, false],
    [429, false],
    [500, false],
    [503, false],
  ])('HTTP %i is a refusal: %s', (code, refusal) => {
    expect(isRefusal(answer(code))).toBe(refusal);
  });

  it('is not a network error', () => {
    expect(isRefusal(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
  });

  it("says which act was refused, with the API server's message", () => {
    const refused = new ActRefused('createBuildJob', answer(403, 'exceeded quota: no-jobs'));
    expect(refused.message).toBe(
      'creating the build Job was refused by the API server (retrying): exceeded quota: no-jobs',
    );
  });
});
