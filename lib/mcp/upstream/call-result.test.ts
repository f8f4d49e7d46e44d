import { describe, expect, it } from 'vitest';
import { outputOfCallResult } from './call-result';
import { progressLine } from './server-talk';
import { upstreamToolName } from './upstream-tool';

describe('outputOfCallResult', () => {
  it('prefers structuredContent, else joins text, else describes each block', () => {
    expect(
      outputOfCallResult({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } }, 't'),
    ).toEqual({ a: 1 });
    expect(
      outputOfCallResult(
        {
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
          ],
        },
        't',
      ),
    ).toBe('one\ntwo');
    expect(
      outputOfCallResult(
        {
          content: [
            { type: 'text', text: 'a picture:' },
            { type: 'image', data: 'AAAA', mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hi' } },
            { type: 'resource_link', uri: 'file:///b', name: 'b' },
          ],
        },
        't',
      ),
    ).toEqual([
      { type: 'text', text: 'a picture:' },
      { type: 'image', mime_type: 'image/png', bytes: 3 },
      { type: 'resource', uri: 'file:///a.txt', mime_type: 'text/plain', text: 'hi' },
      { type: 'resource_link', uri: 'file:///b', name: 'b', mime_type: null },
    ]);
  });

  it('turns isError into a business error whose message is the text', () => {
    expect(() => outputOfCallResult({ content: [{ type: 'text', text: 'no such file' }], isError: true }, 't')).toThrow(
      expect.objectContaining({
        code: 'UPSTREAM_TOOL_ERROR',
        kind: 'business',
        retryable: false,
        message: 'no such file',
      }),
    );
    expect(() => outputOfCallResult({ content: [], isError: true }, 'read')).toThrow(/read reported an error/);
  });
});

describe('names and progress', () => {
  it('namespaces tool names, replacing what a tool name may not hold, refusing what is too long', () => {
    expect(upstreamToolName('fs', 'read_file')).toBe('fs__read_file');
    expect(upstreamToolName('web', 'search.v2')).toBe('web__search_v2');
    expect(upstreamToolName('web', 'x'.repeat(60))).toBeNull();
  });

  it('writes progress as one line', () => {
    expect(progressLine({ progress: 3, total: 10, message: 'copying' })).toBe('progress 3/10: copying\n');
    expect(progressLine({ progress: 0.5 })).toBe('progress 0.5\n');
  });
});
