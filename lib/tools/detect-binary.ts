/** How many leading bytes are enough to tell text from binary. */
export const BINARY_SAMPLE_BYTES = 8192;

/** `null` in a signature matches any byte. */
type Signature = { kind: string; offset?: number; bytes: ReadonlyArray<number | null> };

const ascii = (text: string) => Array.from(text, (char) => char.charCodeAt(0));

// Only signatures that cannot plausibly start a text file: short ASCII magics ("MZ", "BM",
// "ID3") are left out, and the NUL check below catches most of those formats anyway.
const SIGNATURES: Signature[] = [
  { kind: 'PNG image', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { kind: 'JPEG image', bytes: [0xff, 0xd8, 0xff] },
  { kind: 'GIF image', bytes: ascii('GIF87a') },
  { kind: 'GIF image', bytes: ascii('GIF89a') },
  { kind: 'WebP image', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WEBP')] },
  { kind: 'WAV audio', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('WAVE')] },
  { kind: 'AVI video', bytes: [...ascii('RIFF'), null, null, null, null, ...ascii('AVI ')] },
  { kind: 'MP4/MOV video', offset: 4, bytes: ascii('ftyp') },
  { kind: 'Ogg media', bytes: ascii('OggS') },
  { kind: 'FLAC audio', bytes: ascii('fLaC') },
  { kind: 'PDF document', bytes: ascii('%PDF-') },
  { kind: 'ZIP archive (also docx, xlsx, jar)', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { kind: 'ZIP archive (also docx, xlsx, jar)', bytes: [0x50, 0x4b, 0x05, 0x06] },
  { kind: 'ZIP archive (also docx, xlsx, jar)', bytes: [0x50, 0x4b, 0x07, 0x08] },
  { kind: 'gzip archive', bytes: [0x1f, 0x8b] },
  { kind: 'bzip2 archive', bytes: [...ascii('BZh'), null, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59] },
  { kind: 'xz archive', bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { kind: 'zstd archive', bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { kind: '7z archive', bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { kind: 'RAR archive', bytes: [...ascii('Rar!'), 0x1a, 0x07] },
  { kind: 'ELF executable', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { kind: 'Mach-O executable', bytes: [0xfe, 0xed, 0xfa, 0xce] },
  { kind: 'Mach-O executable', bytes: [0xfe, 0xed, 0xfa, 0xcf] },
  { kind: 'Mach-O executable', bytes: [0xce, 0xfa, 0xed, 0xfe] },
  { kind: 'Mach-O executable', bytes: [0xcf, 0xfa, 0xed, 0xfe] },
  { kind: 'Java class or Mach-O universal binary', bytes: [0xca, 0xfe, 0xba, 0xbe] },
  { kind: 'WebAssembly module', bytes: [0x00, 0x61, 0x73, 0x6d] },
  { kind: 'SQLite database', bytes: [...ascii('SQLite format 3'), 0x00] },
];

/** What `detectBinary` says of a sample with no known signature but a NUL byte. */
export const NUL_BYTES_KIND = 'binary data (contains NUL bytes)';

/**
 * Says what binary format `sample` (the first bytes of a file or body) is, or `null` for text.
 * Known magic bytes are checked first so the message can name the format; then any NUL byte
 * means binary, the same rule git and grep use. UTF-16 text counts as binary (it is full of NULs).
 * @example detectBinary(await readHead(file)) // 'PNG image' | null
 */
export function detectBinary(sample: Uint8Array): string | null {
  for (const signature of SIGNATURES) {
    if (matches(sample, signature)) return signature.kind;
  }
  const end = Math.min(sample.length, BINARY_SAMPLE_BYTES);
  for (let index = 0; index < end; index++) {
    if (sample[index] === 0) return NUL_BYTES_KIND;
  }
  return null;
}

function matches(sample: Uint8Array, { offset = 0, bytes }: Signature): boolean {
  if (sample.length < offset + bytes.length) return false;
  return bytes.every((byte, index) => byte === null || sample[offset + index] === byte);
}
