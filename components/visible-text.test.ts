import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { JsonTree } from './trace/json-tree';
import { MarkedText } from './trace/text-marks';
import { VisibleText } from './visible-text';

/** The markup with every tag removed: the text a reader sees. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

describe('VisibleText', () => {
  it('shows a right-to-left override as a marked \\u202E with a title saying what it does', () => {
    const html = renderToStaticMarkup(createElement(VisibleText, { text: 'report-\u202Efdp.sh' }));
    expect(html).toContain('data-testid="invisible-char"');
    expect(html).toContain('data-code="U+202E"');
    expect(html).toMatch(/title="U\+202E RIGHT-TO-LEFT OVERRIDE: shows the text after it right to left/);
    expect(textOf(html)).toBe('report-\\u202Efdp.sh');
    expect(html).not.toContain('\u202E');
  });

  it('renders plain text as it is, without marks', () => {
    expect(renderToStaticMarkup(createElement(VisibleText, { text: 'notes/a.txt' }))).toBe('notes/a.txt');
  });

  it('keeps newlines and tabs of multi-line text', () => {
    const html = renderToStaticMarkup(createElement(VisibleText, { text: 'a\n\tb\u200B', lines: true }));
    expect(textOf(html)).toBe('a\n\tb\\u200B');
  });
});

describe('the views that use it', () => {
  it('JsonTree shows invisible characters of values and keys escaped', () => {
    const html = renderToStaticMarkup(
      createElement(JsonTree, { value: { path: 'report-\u202Efdp.sh', 'na\u200Bme': 'x' }, label: 'Arguments' }),
    );
    expect(textOf(html)).not.toMatch(/[\u202E\u200B]/);
    expect(textOf(html)).toContain('"report-\\u202Efdp.sh"');
    expect(textOf(html)).toContain('"na\\u200Bme"');
    expect(html.match(/data-testid="invisible-char"/g)).toHaveLength(2);
  });

  it('MarkedText (outputs, messages) marks them beside its redactions', () => {
    const html = renderToStaticMarkup(createElement(MarkedText, { text: 'key [REDACTED]\u2066 end\nnext' }));
    expect(html).toContain('data-testid="redacted-mark"');
    expect(html).toContain('data-code="U+2066"');
    expect(textOf(html)).toBe('key [REDACTED]\\u2066 end\nnext');
  });
});
