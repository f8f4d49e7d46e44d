import { describe, expect, it } from 'vitest';
import { parseJsonPrefix } from './json-prefix';

describe('parseJsonPrefix', () => {
  it('parses whole JSON as complete', () => {
    expect(parseJsonPrefix('{"a":[1,2]}')).toEqual({
      ok: true,
      value: { a: [1, 2] },
      complete: true,
      parsedChars: 11,
      totalChars: 11,
    });
  });
  it('keeps what parses of a cut text and closes its brackets', () => {
    const cut = parseJsonPrefix('{"items":[1,2,{"a":"x","b":');
    expect(cut).toMatchObject({ ok: true, complete: false, value: { items: [1, 2, { a: 'x' }] } });
    expect(parseJsonPrefix('[{"name":"rea')).toMatchObject({ ok: true, value: [{}] });
    expect(parseJsonPrefix('[1, 2, 34')).toMatchObject({ ok: true, value: [1, 2] });
    expect(parseJsonPrefix('{"s":"a \\" b", "t": tru')).toMatchObject({ ok: true, value: { s: 'a " b' } });
    expect(parseJsonPrefix('{"a": {"b": [true, null, -1.5e3,')).toMatchObject({
      ok: true,
      value: { a: { b: [true, null, -1500] } },
    });
  });
  it('reads the head before a truncation marker', () => {
    const text = '{"lines":["one","two","thr…[truncated 900 of 1000 characters]…ee"]}';
    expect(parseJsonPrefix(text)).toMatchObject({ ok: true, complete: false, value: { lines: ['one', 'two'] } });
  });
  it('says why when it is not JSON', () => {
    expect(parseJsonPrefix('hello world')).toMatchObject({ ok: false });
    expect(parseJsonPrefix('')).toMatchObject({ ok: false });
  });
  it('stays linear on a large cut text', () => {
    const big = `[${Array.from({ length: 200_000 }, (_, i) => `{"i":${i},"s":"x\\ny"}`).join(',')}`;
    const started = performance.now();
    const result = parseJsonPrefix(big.slice(0, -5));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result).toMatchObject({ ok: true, complete: false });
    if (result.ok) expect((result.value as unknown[]).at(-1)).toEqual({ i: 199_999 });
  });
});
