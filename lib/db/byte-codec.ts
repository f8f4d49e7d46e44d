/**
 * The bytes of the binary columns (see `compact-columns.ts`): unsigned varints (LEB128, 7 bits
 * a byte, up to 2^53), little-endian doubles and length-prefixed UTF-8 text. One writer is
 * shared by every encoder: it runs for every call written, so it grows one scratch buffer
 * instead of allocating per value, and copies out only the finished bytes.
 */

let scratch = Buffer.allocUnsafeSlow(1024);
let at = 0;

function ensure(bytes: number): void {
  if (at + bytes <= scratch.length) return;
  const grown = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, at + bytes));
  scratch.copy(grown, 0, 0, at);
  scratch = grown;
}

function writeVarint(value: number): void {
  ensure(8);
  let rest = value;
  while (rest >= 0x80) {
    scratch[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  scratch[at++] = rest;
}

/**
 * Writes one value's bytes: `begin()`, then the pieces, then `end()` for a copy of them.
 * Encoders never nest, and run synchronously, so the one scratch buffer is never shared.
 */
export const byteWriter = {
  begin(): void {
    at = 0;
  },
  byte(value: number): void {
    ensure(1);
    scratch[at++] = value;
  },
  /** A non-negative safe integer. */
  varint: writeVarint,
  double(value: number): void {
    ensure(8);
    scratch.writeDoubleLE(value, at);
    at += 8;
  },
  /** UTF-8 text with its byte length in front; the caller makes sure it is well formed (no lone surrogate). */
  text(value: string): void {
    const bytes = Buffer.byteLength(value, 'utf8');
    writeVarint(bytes);
    ensure(bytes);
    at += scratch.write(value, at, 'utf8');
  },
  end(): Buffer {
    return Buffer.from(scratch.subarray(0, at));
  },
};

/** Reads what `byteWriter` wrote, front to back; throws on bytes that end too soon. */
export class ByteReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.at >= this.bytes.length;
  }

  byte(): number {
    if (this.at >= this.bytes.length) throw new RangeError('stored bytes end too soon');
    return this.bytes[this.at++] as number;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  double(): number {
    if (this.at + 8 > this.bytes.length) throw new RangeError('stored bytes end too soon');
    const value = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.at, 8).readDoubleLE(0);
    this.at += 8;
    return value;
  }

  text(): string {
    const length = this.varint();
    if (this.at + length > this.bytes.length) throw new RangeError('stored bytes end too soon');
    const value = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.at, length).toString('utf8');
    this.at += length;
    return value;
  }
}
