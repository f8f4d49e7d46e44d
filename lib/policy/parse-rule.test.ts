import { describe, expect, it } from 'vitest';
import { formatRule, parseRule } from './parse-rule';

describe('parseRule', () => {
  it.each([
    ['write_file', { tool: 'write_file', specifier: null }],
    ['  read_file  ', { tool: 'read_file', specifier: null }],
    ['write_file(notes/**)', { tool: 'write_file', specifier: 'notes/**' }],
    ['run_shell(git status)', { tool: 'run_shell', specifier: 'git status' }],
    ['run_shell( npm run * )', { tool: 'run_shell', specifier: 'npm run *' }],
    ['run_shell(echo (hi))', { tool: 'run_shell', specifier: 'echo (hi)' }],
    [
      'http_request(GET https://api.example.com/*)',
      { tool: 'http_request', specifier: 'GET https://api.example.com/*' },
    ],
    ['mcp-server_tool', { tool: 'mcp-server_tool', specifier: null }],
  ])('reads %j', (text, rule) => {
    expect(parseRule(text)).toEqual({ ok: true, rule });
  });

  it.each([
    ['', /is empty/],
    ['   ', /is empty/],
    ['write_file(', /no closing "\)"/],
    ['write_file(notes/**', /no closing "\)"/],
    ['write_file()', /empty specifier; write "write_file" for every call/],
    ['write_file(  )', /empty specifier/],
    ['write file', /names the tool "write file", which is not a tool name/],
    ['run_shell (git status)', /names the tool "run_shell "/],
    ['(git status)', /names the tool ""/],
    ['git status)', /"\)" without a "\("/],
    [`${'x'.repeat(65)}`, /not a tool name/],
    [`run_shell(${'a'.repeat(5000)})`, /longer than 4096/],
  ])('refuses %j with a message saying why', (text, message) => {
    const parsed = parseRule(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.message).toMatch(message);
      expect(parsed.message).toMatch(/^The rule .*\.$/s);
    }
  });

  it('formats a rule back without padding', () => {
    expect(formatRule({ tool: 'run_shell', specifier: 'git status' })).toBe('run_shell(git status)');
    expect(formatRule({ tool: 'write_file', specifier: null })).toBe('write_file');
  });
});
