import { describe, expect, it } from 'vitest';
import { argumentsPreview } from '../db/list-query';
import { summarizeCall } from './call-summary';

/** A list row's summary from the (maybe cut) start of the redacted arguments, as the store gives it. */
describe('summarizeCall', () => {
  it("uses the tool's own summary: run_shell as its command line, http_request as METHOD host/path", () => {
    expect(summarizeCall('run_shell', '{"command":["git","commit","-m","fix it"]}')).toBe("git commit -m 'fix it'");
    expect(summarizeCall('http_request', '{"url":"https://api.example.com/v1/items?x=1","method":"DELETE"}')).toBe(
      'DELETE api.example.com/v1/items?x=1',
    );
    expect(summarizeCall('write_file', '{"path":"notes/a.md","content":"a\\nb\\n"}')).toBe('notes/a.md (2 lines)');
  });

  it('reads arguments the store cut at 200 characters without saying anything wrong', () => {
    const long = JSON.stringify({ path: 'notes/a.md', content: `${'x\n'.repeat(300)}` });
    expect(summarizeCall('write_file', argumentsPreview(long))).toBe('notes/a.md (…)');
    const argv = JSON.stringify({ command: ['echo', ...Array.from({ length: 60 }, (_, i) => `word ${i}`)] });
    const summary = summarizeCall('run_shell', argumentsPreview(argv));
    expect(summary).toMatch(/^echo 'word 0' 'word 1' .* …$/);
    expect(summary).not.toMatch(/word 59/);
  });

  it('falls back to the generic form for other tools and for text that is not a JSON object', () => {
    expect(summarizeCall('github__create_issue', '{"title":"Bug","labels":["a","b"]}')).toBe(
      'title: "Bug", labels: [2 items]',
    );
    expect(summarizeCall('constructor', '{"a":1}')).toBe('a: 1');
    expect(summarizeCall('run_shell', 'not   json')).toBe('not json');
    expect(summarizeCall('run_shell', null)).toBe('');
  });
});
