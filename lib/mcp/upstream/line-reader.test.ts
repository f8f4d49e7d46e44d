import { describe, expect, it } from 'vitest';
import { createLineReader, MAX_STDIO_MESSAGE_BYTES, OVERSIZED_MESSAGE_CODE, oversizedAnswer } from './line-reader';

/** A reader that records what it reads: lines, and oversized lines as `oversized:<bytes>:<id>`. */
function recording(maxBytes?: number) {
  const seen: string[] = [];
  const reader = createLineReader(
    {
      line: (text) => seen.push(text),
      oversized: (bytes, id) => seen.push(`oversized:${bytes}:${JSON.stringify(id)}`),
    },
    maxBytes,
  );
  return { seen, push: (text: string | Buffer) => reader.push(Buffer.isBuffer(text) ? text : Buffer.from(text)) };
}

/** `buffer` in chunks of `size` bytes, as a pipe delivers it. */
function chunks(buffer: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buffer.length; i += size) out.push(buffer.subarray(i, i + size));
  return out;
}

describe('createLineReader', () => {
  it('reads lines split across chunks, several in one chunk, with CRLF, and keeps a partial line', () => {
    const { seen, push } = recording();
    push('{"a":');
    push('1}\n{"b":2}\r\n{"c"');
    expect(seen).toEqual(['{"a":1}', '{"b":2}']);
    push(':3}\n');
    expect(seen).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('reads a message of 9 MiB in 64 KiB chunks as one line, byte for byte (multi-byte characters across chunks)', () => {
    const { seen, push } = recording();
    const text = `{"jsonrpc":"2.0","id":7,"result":{"text":"${'é€'.repeat(1_600_000)}"}}`;
    for (const chunk of chunks(Buffer.from(`${text}\n`), 64 * 1024)) push(chunk);
    expect(seen).toHaveLength(1);
    expect(seen[0] === text).toBe(true);
  });

  it('drops a line over the bound as it comes, naming its request id from either end, and reads on', () => {
    const { seen, push } = recording(1024);
    const filler = 'x'.repeat(5_000);
    const idLast = `{"result":{"content":[{"type":"text","text":"${filler}"}]},"jsonrpc":"2.0","id":42}`;
    const idFirst = `{"jsonrpc":"2.0","id":"req-9","result":{"text":"${filler} \\"id\\":1}"}}`;
    const noId = `{"method":"notifications/message","params":{"text":"${filler}"}}`;
    for (const chunk of chunks(Buffer.from(`${idLast}\n${idFirst}\n${noId}\n{"ok":true}\n`), 700)) push(chunk);
    expect(seen).toEqual([
      `oversized:${idLast.length}:42`,
      `oversized:${idFirst.length}:"req-9"`,
      `oversized:${noId.length}:null`,
      '{"ok":true}',
    ]);
  });

  it('answers an oversized response with a JSON-RPC error for its request', () => {
    expect(oversizedAnswer(42, 12_000_000)).toEqual({
      jsonrpc: '2.0',
      id: 42,
      error: {
        code: OVERSIZED_MESSAGE_CODE,
        message: 'its answer was 12000000 bytes, over the 10 MiB a stdio message may hold',
        data: { bytes: 12_000_000, limit_bytes: MAX_STDIO_MESSAGE_BYTES },
      },
    });
  });
});
