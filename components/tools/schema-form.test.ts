import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { inputJsonSchema } from '@/lib/executor/json-schema';
import { createHttpRequestTool } from '@/lib/tools/http-request';
import { issuesByPath, mergeFieldIssues } from '@/lib/ui/json-issues';
import { type JsonSchema, validateAgainstSchema } from '@/lib/ui/json-schema';
import { ObjectFields } from './schema-form';

const schema = inputJsonSchema(createHttpRequestTool()) as JsonSchema;

function render(value: unknown, server: Parameters<typeof mergeFieldIssues>[1] = []) {
  const issues = issuesByPath(mergeFieldIssues(validateAgainstSchema(schema, value, 'http_request'), server));
  return renderToString(createElement(ObjectFields, { schema, value, path: [], issues, onChange: () => {} }));
}

const shownIssues = (html: string) =>
  [...html.matchAll(/data-testid="form-issue"[^>]*>([^<]*)</g)].map((match) => match[1]?.replaceAll('&quot;', '"'));

describe('ObjectFields', () => {
  it('shows an empty header name on its entry, before anything is sent', () => {
    const html = render({ url: 'http://localhost/', headers: { '': 'v' } });
    expect(shownIssues(html)).toEqual(['A name cannot be empty']);
    expect(html).toMatch(/aria-invalid="true"[^>]*data-field="headers\."/);
  });

  it('shows an unknown field, which has no editor of its own', () => {
    const html = render({ url: 'http://localhost/', extra: true });
    expect(shownIssues(html)).toEqual(['Unknown field "extra"; http_request takes: url, method, headers, body']);
  });

  it("shows a field's issue once, in the server's words when both sides report it", () => {
    const server = [
      {
        path: 'headers.',
        message: 'A header name cannot be empty; give each header a name, e.g. "content-type".',
        code: 'invalid_key',
      },
    ];
    const html = render({ url: 'http://localhost/', headers: { '': 'v' } }, server);
    expect(shownIssues(html)).toEqual([server[0]?.message]);
  });
});
