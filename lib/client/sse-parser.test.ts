import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseFrame } from './sse-parser';

const parseAll = (chunks: string[]): SseFrame[] => {
  const parse = createSseParser();
  return chunks.flatMap((chunk) => parse(chunk));
};

describe('createSseParser', () => {
  it('reads event, id and multi-line data, skipping comments and retry, with any line ending', () => {
    const text =
      'retry: 2000\n\n: a comment\r\nid: 17\r\nevent: trace\r\ndata: {"a":1}\r\n\r\n' +
      'event: ping\rdata: x\rdata: y\r\r' +
      'data:no-space\n\n';
    expect(parseAll([text])).toEqual([
      { event: 'trace', data: '{"a":1}', id: '17' },
      { event: 'ping', data: 'x\ny', id: null },
      { event: 'message', data: 'no-space', id: null },
    ]);
  });

  it('keeps a frame that is not finished for the next chunk', () => {
    const parse = createSseParser();
    expect(parse('id: 1\nevent: trace\ndata: {"a"')).toEqual([]);
    expect(parse(':1}\n\n')).toEqual([{ event: 'trace', data: '{"a":1}', id: '1' }]);
  });

  it('gives the same frames however the stream is cut into chunks (a CRLF split too)', () => {
    const frame = fc.record({
      event: fc.constantFrom('trace', 'approval', 'ping', 'reset'),
      id: fc.option(fc.integer({ min: 0 }).map(String), { nil: null }),
      data: fc.array(
        fc.string({ unit: 'grapheme-ascii' }).map((s) => s.replace(/[\r\n]/g, '')),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
      eol: fc.constantFrom('\n', '\r\n', '\r'),
    });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 8 }), (frames, cuts) => {
        const text = frames
          .map(({ event, id, data, eol }) => {
            const lines = [`event: ${event}`, ...(id === null ? [] : [`id: ${id}`]), ...data.map((d) => `data: ${d}`)];
            return lines.join(eol) + eol + eol;
          })
          .join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points, text.length].slice(1).map((end, i, ends) => text.slice(i ? ends[i - 1] : 0, end));
        const expected = frames.map(({ event, id, data }) => ({ event, id, data: data.join('\n') }));
        expect(parseAll(chunks)).toEqual(expected);
        expect(parseAll([text])).toEqual(expected);
      }),
    );
  });
});
