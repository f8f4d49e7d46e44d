import { describe, expect, it } from 'vitest';
import { createByteCollector } from './byte-collector';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('createByteCollector', () => {
  it('keeps everything under the cap', () => {
    const collector = createByteCollector(10);
    expect(collector.push(utf8('hello'))).toBe(true);
    expect(collector.push(utf8('world'))).toBe(true);
    expect(collector.text()).toBe('helloworld');
    expect(collector.truncated).toBe(false);
    expect(collector.totalBytes).toBe(10);
  });

  it('keeps the first maxBytes, counts the rest and says so', () => {
    const collector = createByteCollector(8);
    expect(collector.push(utf8('hello'))).toBe(true);
    expect(collector.push(utf8('world'))).toBe(false);
    expect(collector.push(utf8('!!'))).toBe(false);
    expect(collector.text()).toBe('hellowor');
    expect(collector.bytes().length).toBe(8);
    expect(collector.totalBytes).toBe(12);
    expect(collector.truncated).toBe(true);
  });

  it('does not keep a reference to the pushed chunk (callers may reuse buffers)', () => {
    const collector = createByteCollector(10);
    const chunk = Buffer.from('abc');
    collector.push(chunk);
    chunk.write('xyz');
    expect(collector.text()).toBe('abc');
  });

  it.each([
    ['a 2-byte character', 'aé', 2],
    ['a 3-byte character', 'a你', 2],
    ['a 3-byte character', 'a你', 3],
    ['a 4-byte character', 'a🎉', 2],
    ['a 4-byte character', 'a🎉', 4],
  ])('drops %s cut by the cap instead of mangling it (cap %i)', (_label, text, cap) => {
    const collector = createByteCollector(cap);
    collector.push(utf8(`${text}tail`));
    expect(collector.text()).toBe('a');
  });

  it('keeps a character that ends exactly at the cap', () => {
    const collector = createByteCollector(3);
    collector.push(utf8('aéz'));
    expect(collector.text()).toBe('aé');
  });

  it('handles a zero cap', () => {
    const collector = createByteCollector(0);
    expect(collector.push(utf8('x'))).toBe(false);
    expect(collector.text()).toBe('');
  });
});
