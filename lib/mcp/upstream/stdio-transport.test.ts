import { describe, expect, it } from 'vitest';
import { MAX_STDERR_LINE_CHARS, StdioProcessTransport } from './stdio-transport';

/** A child that writes `script`'s stderr and exits, through the transport; the lines it reported. */
async function stderrLinesOf(script: string): Promise<string[]> {
  const lines: string[] = [];
  const transport = new StdioProcessTransport(
    { command: process.execPath, args: ['-e', script], env: {}, cwd: null },
    (line) => lines.push(line),
  );
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await transport.start();
  await closed;
  return lines;
}

describe('StdioProcessTransport: stderr', () => {
  it('reports lines as written, an empty one and an unended last one too', async () => {
    const lines = await stderrLinesOf(String.raw`process.stderr.write('one\r\n\ntwo\nlast')`);
    expect(lines).toEqual(['one', '', 'two', 'last']);
  });

  it(`cuts a 5 MB line without a newline to ${MAX_STDERR_LINE_CHARS} characters, saying how much was not kept`, async () => {
    const lines = await stderrLinesOf(
      String.raw`const chunk = 'x'.repeat(65536); let n = 0;
      const more = () => { while (n < 80) { n++; if (!process.stderr.write(chunk)) return process.stderr.once('drain', more); }
        process.stderr.write('\nafter\n'); };
      more();`,
    );
    expect(lines).toHaveLength(2);
    const dropped = 80 * 65536 - MAX_STDERR_LINE_CHARS;
    expect(lines[0]).toBe(`${'x'.repeat(MAX_STDERR_LINE_CHARS)}…[${dropped} more characters of this line not kept]`);
    expect(lines[1]).toBe('after');
  });
});
