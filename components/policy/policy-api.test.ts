import { describe, expect, it, vi } from 'vitest';
import { fetchPolicy, isPolicyApiError } from './policy-api';

/** What the module throws, from whichever copy of it threw it. */
async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('PolicyApiError, matched on its shape', () => {
  it('is what the policy API calls reject with when the server cannot be reached', async () => {
    // Outside a page the relative URL cannot be fetched: the same path as a server that is down.
    const error = await rejection(fetchPolicy());
    expect(isPolicyApiError(error)).toBe(true);
    expect(error).toMatchObject({ name: 'PolicyApiError', code: 'UNREACHABLE', status: 0, errors: [] });
    expect((error as Error).message).toBe('not sent: Toolscope is not reachable');
  });

  it('recognises one thrown by another copy of the module (a second chunk of the build)', async () => {
    vi.resetModules();
    const copy = (await import('./policy-api')) as typeof import('./policy-api');
    expect(copy.fetchPolicy).not.toBe(fetchPolicy);
    const error = await rejection(copy.fetchPolicy());
    expect(isPolicyApiError(error)).toBe(true);
    expect(copy.isPolicyApiError(error)).toBe(true);
  });

  it('recognises a structurally equal error of another class, and nothing merely named so', () => {
    class OtherCopy extends Error {
      override readonly name = 'PolicyApiError';
      constructor(
        message: string,
        readonly code: string,
        readonly status: number,
        readonly errors: { path: string; message: string }[],
      ) {
        super(message);
      }
    }
    const refused = new OtherCopy('2 rules are invalid', 'INVALID_RULES', 400, [
      { path: 'rules[0].rule', message: 'unknown tool' },
    ]);
    expect(isPolicyApiError(refused)).toBe(true);
    expect(isPolicyApiError(Object.assign(new Error('x'), { name: 'PolicyApiError' }))).toBe(false);
    expect(isPolicyApiError(new Error('x'))).toBe(false);
    expect(isPolicyApiError({ name: 'PolicyApiError', code: 'X', status: 400, errors: [], message: 'x' })).toBe(false);
    expect(isPolicyApiError(null)).toBe(false);
  });
});
