import { describe, expect, it } from 'vitest';
import { summarizeArguments } from './arguments-summary';

describe('summarizeArguments', () => {
  it('shows top-level fields on one line', () => {
    expect(summarizeArguments('{"path":"README.md","limit":10}')).toBe('path: "README.md", limit: 10');
    expect(summarizeArguments('{"opts":{"a":1},"list":[1,2,3],"none":null}')).toBe(
      'opts: {…}, list: [3 items], none: null',
    );
    expect(summarizeArguments('{"text":"a\\nb"}')).toBe('text: "a\\nb"');
  });
  it('marks a cut preview and keeps what parses', () => {
    expect(summarizeArguments('{"path":"src/a.ts","content":"very lo')).toBe('path: "src/a.ts" …');
  });
  it('collapses non-JSON text and is empty for no preview', () => {
    expect(summarizeArguments('not   json\nat all')).toBe('not json at all');
    expect(summarizeArguments(null)).toBe('');
    expect(summarizeArguments('{}')).toBe('{}');
  });
  it('keeps [REDACTED] visible', () => {
    expect(summarizeArguments('{"api_key":"[REDACTED]"}')).toBe('api_key: "[REDACTED]"');
  });
});
