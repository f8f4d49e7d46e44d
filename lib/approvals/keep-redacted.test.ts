import { describe, expect, it } from 'vitest';
import { REDACTED } from '../executor/redact';
import { keepRedacted } from './keep-redacted';

const recorded = {
  url: 'https://api.test/x',
  headers: { authorization: 'Bearer sk-live-1234567890abcdef' },
  body: 'token=sk-live-1234567890abcdef&q=1',
  list: ['a', 'sk-live-1234567890abcdef'],
};
const shown = {
  url: 'https://api.test/x',
  headers: { authorization: REDACTED },
  body: `token=${REDACTED}&q=1`,
  list: ['a', REDACTED],
};

describe('keepRedacted', () => {
  it('gives back the recorded secret wherever the edit left the masked value as shown', () => {
    const edited = { ...shown, url: 'https://api.test/y' };
    expect(keepRedacted(edited, shown, recorded)).toEqual({
      ok: true,
      value: { ...recorded, url: 'https://api.test/y' },
    });
  });

  it('takes a secret the person typed again as typed', () => {
    const edited = { ...shown, headers: { authorization: 'Bearer new-token' } };
    expect(keepRedacted(edited, shown, recorded)).toEqual({
      ok: true,
      value: { ...recorded, headers: { authorization: 'Bearer new-token' } },
    });
  });

  it('refuses a mask left in a string edited around it, or moved to a new field, naming the path', () => {
    const edited = { ...shown, body: `token=${REDACTED}&q=2`, extra: REDACTED, list: [REDACTED, 'a'] };
    const result = keepRedacted(edited, shown, recorded);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.map((i) => i.path)).toEqual(['body', 'list.0', 'extra']);
  });

  it('passes arguments without masks through unchanged', () => {
    const edited = { path: 'notes/a.md', content: 'x', n: 3, nested: [{ b: true }] };
    expect(keepRedacted(edited, { path: 'a' }, { path: 'a' })).toEqual({ ok: true, value: edited });
  });
});
