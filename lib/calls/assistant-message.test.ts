import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { ASSISTANT_TEXT_MAX_BYTES, cutUtf8, storedAssistantMessage } from './assistant-message';

const config = loadConfig({}, process.cwd());

describe('cutUtf8', () => {
  it('keeps a text within the bound as it is, and cuts a longer one to a prefix within it, never inside a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 0, max: 600 }), (text, max) => {
        const { text: kept, cut } = cutUtf8(text, max);
        expect(Buffer.byteLength(kept, 'utf8')).toBeLessThanOrEqual(Math.max(max, cut ? 0 : Buffer.byteLength(text)));
        expect(text.startsWith(kept)).toBe(true);
        expect(cut).toBe(Buffer.byteLength(text, 'utf8') > max);
        expect(kept).not.toContain('\uFFFD');
        // Nothing more fits: the next character would pass the bound.
        if (cut) {
          const next = text.slice(kept.length).codePointAt(0) ?? 0;
          expect(Buffer.byteLength(kept + String.fromCodePoint(next), 'utf8')).toBeGreaterThan(max);
        }
      }),
    );
  });
});

describe('storedAssistantMessage', () => {
  it('scrubs secrets from the text and the model name before it bounds the text', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwx';
    const text = `${'a'.repeat(ASSISTANT_TEXT_MAX_BYTES - 10)} ${key}`;
    const stored = storedAssistantMessage({ text, model: `model ${key}` }, config);
    expect(stored?.truncated).toBe(true);
    expect(stored?.text).not.toContain('sk-proj');
    expect(stored?.text?.endsWith(' [REDACTED')).toBe(true);
    expect(stored?.model).toBe('model [REDACTED]');
  });

  it('is nothing for an empty message', () => {
    expect(storedAssistantMessage(undefined, config)).toBeNull();
    expect(storedAssistantMessage({}, config)).toBeNull();
    expect(storedAssistantMessage({ text: '', model: null }, config)).toBeNull();
    expect(storedAssistantMessage({ model: 'gpt' }, config)).toEqual({ text: null, model: 'gpt', truncated: false });
  });
});
