import { describe, expect, it } from 'vitest';
import { BINARY_SAMPLE_BYTES, detectBinary } from './detect-binary';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => new TextEncoder().encode(value);

describe('detectBinary', () => {
  it.each([
    ['PNG image', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00)],
    ['JPEG image', bytes(0xff, 0xd8, 0xff, 0xe0, 0x10)],
    ['GIF image', text('GIF89a\x01\x01')],
    ['GIF image', text('GIF87a\x01\x01')],
    ['WebP image', text('RIFF\x10\x20\x30\x40WEBPVP8 ')],
    ['PDF document', text('%PDF-1.7\n%')],
    ['ZIP archive (also docx, xlsx, jar)', bytes(0x50, 0x4b, 0x03, 0x04, 0x14)],
    ['ZIP archive (also docx, xlsx, jar)', bytes(0x50, 0x4b, 0x05, 0x06)],
    ['gzip archive', bytes(0x1f, 0x8b, 0x08)],
    ['bzip2 archive', text('BZh91AY&SY')],
    ['xz archive', bytes(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)],
    ['zstd archive', bytes(0x28, 0xb5, 0x2f, 0xfd)],
    ['7z archive', bytes(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)],
    ['RAR archive', bytes(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00)],
    ['ELF executable', bytes(0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01)],
    ['Mach-O executable', bytes(0xcf, 0xfa, 0xed, 0xfe)],
    ['Java class or Mach-O universal binary', bytes(0xca, 0xfe, 0xba, 0xbe)],
    ['WebAssembly module', bytes(0x00, 0x61, 0x73, 0x6d, 0x01)],
    ['SQLite database', text('SQLite format 3\0')],
    ['MP4/MOV video', text('\0\0\0\x18ftypmp42')],
    ['Ogg media', text('OggS\0\x02')],
  ])('recognizes a %s by its magic bytes', (kind, sample) => {
    expect(detectBinary(sample)).toBe(kind);
  });

  it('treats a NUL byte anywhere in the sample as binary', () => {
    const sample = text(`${'a'.repeat(5000)}\0${'b'.repeat(100)}`);
    expect(detectBinary(sample)).toBe('binary data (contains NUL bytes)');
  });

  it('only looks at the first 8 KiB', () => {
    const sample = text(`${'a'.repeat(BINARY_SAMPLE_BYTES)}\0`);
    expect(detectBinary(sample)).toBeNull();
  });

  it('treats UTF-16 text as binary, since it is full of NULs', () => {
    expect(detectBinary(bytes(0xff, 0xfe, 0x68, 0x00, 0x69, 0x00))).not.toBeNull();
  });

  it.each([
    ['empty', ''],
    ['ASCII', 'hello world\n'],
    ['UTF-8 with accents and emoji', 'héllo wörld — 你好 🎉\n'],
    ['a text starting like a DOS executable', 'MZ is the start of a name\n'],
    ['a text starting like a bitmap', 'BM means something\n'],
    ['a text starting with RIFF', 'RIFF is a container format\n'],
    ['a text about BZh', 'BZh is the bzip2 magic\n'],
    ['JSON', '{"a": [1, 2, 3]}'],
    ['control characters but no NUL', '\x1b[31mred\x1b[0m\t\r\n'],
  ])('treats %s as text', (_label, value) => {
    expect(detectBinary(text(value))).toBeNull();
  });
});
