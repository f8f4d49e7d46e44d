import { describe, expect, it } from 'vitest';
import { MAX_ERROR_DETAILS_CHARS, MAX_ERROR_MESSAGE_CHARS } from '../executor/bound-error';
import { apiError } from './http';

/** The API's error envelope within an error's bounds, whatever its message and details quote. */
describe('apiError', () => {
  it('answers a small error as it is', async () => {
    const response = apiError(400, 'INVALID_RULES', 'a: bad', { errors: [{ path: 'a', message: 'bad' }] });
    expect(await response.json()).toEqual({
      error: { code: 'INVALID_RULES', message: 'a: bad', details: { errors: [{ path: 'a', message: 'bad' }] } },
    });
  });

  it('cuts a 5 MB message and 100,000 field errors, each cut marked', async () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => ({ path: `rules.${i}`, message: 'x'.repeat(50) }));
    const response = apiError(400, 'INVALID_RULES', 'm'.repeat(5_000_000), { errors });
    const text = await response.text();
    expect(text.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + MAX_ERROR_DETAILS_CHARS + 4_096);
    const { error } = JSON.parse(text);
    expect(error.message).toContain('[truncated ');
    expect(error.details.errors.at(-1)).toMatch(/^…\[\d+ more items not kept\]$/);
    expect(error.details.details_truncated).toBeDefined();
  });
});
