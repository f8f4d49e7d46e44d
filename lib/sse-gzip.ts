import zlib from 'node:zlib';

/**
 * Gzip for event streams, compressed once per batch however many streams write it.
 *
 * A batch is deflated on its own and ended with a sync flush (byte-aligned, no back-reference
 * before its start), so the same bytes continue any stream: a stream is the gzip header, the
 * segments of what it was sent, and at its end a final empty block and the trailer (CRC-32 and
 * length of everything it was sent). The CRC is combined per stream from each segment's own CRC
 * and length (a 32-step product in GF(2)), not recomputed over the stream's bytes.
 * The batches of a busy second compress ~17× (trace ids repeat between a call's events).
 */

/** A gzip member's header: deflate, no name, no time, unknown OS. */
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);

/** A final, empty deflate block (fixed Huffman, end of block alone). */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** The CRC-32 polynomial, bit-reversed, as zlib uses it. */
const POLY = 0xedb88320;

/** a(x)·b(x) modulo the CRC polynomial, both bit-reversed (the top bit is x^0). */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  for (let bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if (a & bit) product ^= b;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo P for k = 0…31: squaring the one before. */
const X_POWERS_OF_TWO = (() => {
  const table = new Array<number>(32);
  let power = 0x40000000; // x^1
  for (let k = 0; k < 32; k++) {
    table[k] = power;
    power = multiplyModP(power, power);
  }
  return table;
})();

/** x^(8·bytes) modulo P: what a CRC is multiplied by when `bytes` more bytes follow it. */
export function crcShift(bytes: number): number {
  let result = 0x80000000; // x^0
  // 8·bytes = bytes · 2^3: start at x^(2^3) and walk the bits of `bytes`.
  let k = 3;
  for (let n = bytes; n > 0; n = Math.floor(n / 2), k++) {
    if (n % 2 === 1) result = multiplyModP(X_POWERS_OF_TWO[k % 32] as number, result);
  }
  return result;
}

/** The CRC-32 of A followed by B, from crc(A), crc(B) and crcShift(|B|). */
export function combineCrc(crcA: number, crcB: number, shiftB: number): number {
  return (multiplyModP(shiftB, crcA) ^ crcB) >>> 0;
}

/** One batch's deflated bytes, with what a stream needs to account for it in its trailer. */
export interface GzipSegment {
  bytes: Buffer;
  /** CRC-32 and length of the plain bytes. */
  crc: number;
  length: number;
  /** crcShift(length). */
  shift: number;
}

/** Deflates `plain` as a segment any gzip stream can continue with. */
export function gzipSegment(plain: Buffer | string): GzipSegment {
  const data = typeof plain === 'string' ? Buffer.from(plain) : plain;
  return {
    bytes: zlib.deflateRawSync(data, { level: 1, finishFlush: zlib.constants.Z_SYNC_FLUSH }),
    crc: zlib.crc32(data),
    length: data.length,
    shift: crcShift(data.length),
  };
}

/** One stream's running CRC and length, and its trailer. */
export function createGzipStream() {
  let crc = 0;
  let length = 0;
  return {
    /** Accounts for a segment written to this stream; returns its bytes. */
    add(segment: GzipSegment): Buffer {
      crc = combineCrc(crc, segment.crc, segment.shift);
      length = (length + segment.length) % 2 ** 32;
      return segment.bytes;
    },
    /** The end of the stream: a final empty block, then CRC-32 and length (mod 2^32), little-endian. */
    end(): Buffer {
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(crc, 0);
      trailer.writeUInt32LE(length, 4);
      return Buffer.concat([FINAL_BLOCK, trailer]);
    },
  };
}

/** Whether an Accept-Encoding header accepts gzip (listed, or `*`, without q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (!header) return false;
  const value = Array.isArray(header) ? header.join(',') : header;
  let star = false;
  for (const part of value.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const refused = q !== undefined && Number(q.slice(2)) === 0;
    if (name.trim() === 'gzip' || name.trim() === 'x-gzip') return !refused;
    if (name.trim() === '*') star = !refused;
  }
  return star;
}
