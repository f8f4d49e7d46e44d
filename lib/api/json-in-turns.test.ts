import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crowding } from '../hardening/testing/machine-pace';
import { createPacer, JsonSyntaxError, parseJsonInTurns } from './json-in-turns';

/** What JSON.parse makes of `text`: its value written out again (key order kept), or `error`. */
function parsedBy(parse: (text: string) => unknown) {
  return (text: string) => {
    try {
      return { ok: JSON.stringify(parse(text)) };
    } catch {
      return 'error';
    }
  };
}
const native = parsedBy(JSON.parse);

async function inTurns(text: string, pieceChars: number) {
  try {
    return { ok: JSON.stringify(await parseJsonInTurns(text, { pieceChars })) };
  } catch (error) {
    expect(error).toBeInstanceOf(JsonSyntaxError);
    return 'error';
  }
}

/** JSON texts with odd spacing, and broken ones: a character dropped, added or changed. */
const jsonText = fc
  .tuple(fc.json({ depthSize: 'medium' }), fc.constantFrom('', ' ', '\n\t ', '  \r\n'))
  .map(([text, space]) => text.replace(/([,:[\]{}])/g, `${space}$1${space}`));
const brokenText = fc
  .tuple(jsonText, fc.nat(), fc.constantFrom('', ',', ']', '}', '[', '{', '"', ':', '\\', 'x', '1', ' '))
  .map(([text, at, char]) => {
    const i = text.length === 0 ? 0 : at % text.length;
    return fc.sample(fc.constantFrom('drop', 'add', 'change'), { numRuns: 1, seed: at })[0] === 'drop'
      ? text.slice(0, i) + text.slice(i + 1)
      : text.slice(0, i) + char + text.slice(i + (at % 2));
  });

describe('parseJsonInTurns', () => {
  it('accepts exactly what JSON.parse accepts, with the same value, however small the pieces', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(jsonText, brokenText), fc.integer({ min: 1, max: 64 }), async (text, piece) => {
        expect(await inTurns(text, piece)).toEqual(native(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('builds objects as JSON.parse does: __proto__ an own key, a repeated key in its first place with its last value', async () => {
    const text = '{"b":1,"__proto__":{"polluted":true},"a":2,"b":3,"constructor":{"prototype":1}}';
    const value = (await parseJsonInTurns(text, { pieceChars: 2 })) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['b', '__proto__', 'a', 'constructor']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.b).toBe(3);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('says where the text stops being JSON, in the whole text', async () => {
    const cases: [string, RegExp][] = [
      ['{"a": [1, 2,, 3]}', /at position 12 \(line 1 column 13\)/],
      ['{\n"a": 1\n"b": 2}', /at position 9 \(line 3 column 1\)/],
      ['[1, 2] x', /at position 7/],
      ['{"format": ', /^Unexpected end of JSON input$/],
      ['{"a": "\u0001"}', /at position 7/],
      ['', /^Unexpected end of JSON input$/],
    ];
    for (const [text, message] of cases) {
      const error = await parseJsonInTurns(text, { pieceChars: 1 }).catch((e: unknown) => e);
      expect(error, text).toBeInstanceOf(JsonSyntaxError);
      expect((error as Error).message, text).toMatch(message);
    }
  });

  it('yields to the event loop between pieces: a 20 MB text never holds a turn past its budget by much', async () => {
    const row = { id: 'x'.repeat(36), output: { text: 'lorem ipsum '.repeat(150), n: [1, 2, 3] } };
    const text = JSON.stringify({ traces: Array.from({ length: 11_000 }, () => row), tail: 'y'.repeat(2_000_000) });
    expect(text.length).toBeGreaterThan(20e6);
    const turns: number[] = [];
    let last = performance.now();
    const pacer = createPacer(8, async () => {
      turns.push(performance.now() - last);
      await new Promise((resolve) => setImmediate(resolve));
      last = performance.now();
    });
    const value = (await parseJsonInTurns(text, { pacer })) as { traces: unknown[]; tail: string };
    turns.push(performance.now() - last);
    expect(value.traces).toHaveLength(11_000);
    expect(value.tail).toHaveLength(2_000_000);
    expect(turns.length).toBeGreaterThan(10);
    // The median turn is the budget and a piece (a whole JSON.parse of the text is ~0.5 s on the
    // reference machine), stretched by how slow and busy this machine is.
    const sorted = [...turns].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(25 * crowding());
  });
});
