import { describe, expect, it } from 'vitest';
import { crowding } from '../hardening/testing/machine-pace';
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
  it('does not take text that starts like JSON and goes wrong before its end for a cut JSON', () => {
    expect(parseJsonPrefix('[binary stdout left out: PNG image, 11 bytes]')).toEqual({
      ok: false,
      reason: 'Not JSON: unexpected "binary stdou" at character 2',
    });
    expect(parseJsonPrefix('[INFO] server started\n[INFO] ready')).toMatchObject({ ok: false });
    expect(parseJsonPrefix('{"a":1} and more')).toMatchObject({ ok: false });
    expect(parseJsonPrefix('[1, 2, nope]')).toMatchObject({ ok: false });
    // Cut where a literal or a number had just begun: still a cut.
    expect(parseJsonPrefix('[true, fa')).toMatchObject({ ok: true, complete: false, value: [true] });
    expect(parseJsonPrefix('[1, -')).toMatchObject({ ok: true, complete: false, value: [1] });
    expect(parseJsonPrefix('[1, 2.')).toMatchObject({ ok: true, complete: false, value: [1] });
    expect(parseJsonPrefix('{"a": 1, "b": 2e+')).toMatchObject({ ok: true, complete: false, value: { a: 1 } });
  });
  it('reads the head of a stream run_shell cut at its output cap', () => {
    expect(parseJsonPrefix('{"items":[1,2,\n[... stdout truncated ...]')).toMatchObject({
      ok: true,
      complete: false,
      value: { items: [1, 2] },
    });
  });
  it('stays linear on a large cut text', () => {
    const big = `[${Array.from({ length: 200_000 }, (_, i) => `{"i":${i},"s":"x\\ny"}`).join(',')}`;
    const started = performance.now();
    const result = parseJsonPrefix(big.slice(0, -5));
    expect(performance.now() - started).toBeLessThan(2_000 * crowding());
    expect(result).toMatchObject({ ok: true, complete: false });
    if (result.ok) expect((result.value as unknown[]).at(-1)).toEqual({ i: 199_999 });
  });
});
