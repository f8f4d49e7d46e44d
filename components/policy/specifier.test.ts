import { describe, expect, it } from 'vitest';
import { ruleText, specifierExample, splitRule } from './specifier';

describe('specifier hints', () => {
  it('takes the first example of a subject description', () => {
    expect(specifierExample('a path glob relative to the workspace, e.g. notes/** or *.md')).toBe('notes/**');
    expect(specifierExample('the command and its arguments joined by spaces, e.g. git status or npm run *')).toBe(
      'git status',
    );
    expect(
      specifierExample('an optional method and a URL where * matches any text, e.g. GET https://api.example.com/*'),
    ).toBe('GET https://api.example.com/*');
    expect(specifierExample('no example here')).toBe('');
    expect(specifierExample(null)).toBe('');
  });

  it('writes a rule from a tool and a specifier', () => {
    expect(ruleText('run_shell', ' npm run * ')).toBe('run_shell(npm run *)');
    expect(ruleText('calculator', '  ')).toBe('calculator');
  });

  it('takes a rule apart for display', () => {
    expect(splitRule('write_file(notes/**)')).toEqual({ tool: 'write_file', specifier: 'notes/**' });
    expect(splitRule('http_request(GET https://a.example/(x))')).toEqual({
      tool: 'http_request',
      specifier: 'GET https://a.example/(x)',
    });
    expect(splitRule('calculator')).toEqual({ tool: 'calculator', specifier: null });
  });
});
