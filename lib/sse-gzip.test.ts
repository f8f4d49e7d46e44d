import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, combineCrc, crcShift, createGzipStream, GZIP_HEADER, gzipSegment } from './sse-gzip';

describe('gzip segments shared by event streams', () => {
  it('combines CRCs as the CRC of the concatenation', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const whole = zlib.crc32(Buffer.concat([a, b]));
        expect(combineCrc(zlib.crc32(a), zlib.crc32(b), crcShift(b.length))).toBe(whole);
      }),
    );
  });

  it('shifts by lengths past 2^16 and 2^24 bytes too', () => {
    for (const length of [65_536, 70_001, 16_777_217]) {
      const a = Buffer.from('the start');
      const b = Buffer.alloc(length, 0x61);
      expect(combineCrc(zlib.crc32(a), zlib.crc32(b), crcShift(length))).toBe(zlib.crc32(Buffer.concat([a, b])));
    }
  });

  it('any sequence of segments, after the header and before the end, is one valid gzip stream of their text', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 2_000 }), { maxLength: 12 }), (texts) => {
        const stream = createGzipStream();
        const bytes = Buffer.concat([GZIP_HEADER, ...texts.map((text) => stream.add(gzipSegment(text))), stream.end()]);
        expect(zlib.gunzipSync(bytes).toString()).toBe(texts.join(''));
      }),
      { numRuns: 200 },
    );
  });

  it('decodes each segment as soon as it arrives (a sync flush ends it)', async () => {
    const gunzip = zlib.createGunzip();
    const out: string[] = [];
    gunzip.on('data', (chunk: Buffer) => out.push(chunk.toString()));
    const stream = createGzipStream();
    gunzip.write(GZIP_HEADER);
    gunzip.write(stream.add(gzipSegment('id: 2\nevent: trace\ndata: {}\n\n')));
    await new Promise<void>((resolve) => gunzip.flush(() => resolve()));
    expect(out.join('')).toBe('id: 2\nevent: trace\ndata: {}\n\n');
  });

  it('reads Accept-Encoding as HTTP says', () => {
    expect(acceptsGzip('gzip, deflate, br, zstd')).toBe(true);
    expect(acceptsGzip('br;q=1.0, gzip;q=0.8')).toBe(true);
    expect(acceptsGzip('GZIP')).toBe(true);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('*, gzip;q=0')).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip(['deflate', 'gzip'])).toBe(true);
  });
});
