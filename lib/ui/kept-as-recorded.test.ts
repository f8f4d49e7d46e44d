import { describe, expect, it } from 'vitest';
import { maskedValues } from './kept-as-recorded';

describe('maskedValues', () => {
  it('lists masked values left as shown as kept, and those edited around the mask as not', () => {
    const shown = {
      url: 'https://x/?token=[REDACTED]',
      headers: { authorization: '[REDACTED]' },
      list: ['[REDACTED]'],
    };
    const edited = {
      url: 'https://y/?token=[REDACTED]',
      headers: { authorization: '[REDACTED]' },
      list: ['[REDACTED]'],
    };
    expect(maskedValues(edited, shown)).toEqual([
      { path: 'url', kept: false },
      { path: 'headers.authorization', kept: true },
      { path: 'list[0]', kept: true },
    ]);
  });

  it('is empty once every masked value is typed anew', () => {
    expect(maskedValues({ api_key: 'sk-new' }, { api_key: '[REDACTED]' })).toEqual([]);
  });
});
