/** Collects a stream's bytes up to a cap, counting (not keeping) the rest. */
export interface ByteCollector {
  /** Adds a chunk; returns false once the cap has been passed. */
  push(chunk: Uint8Array): boolean;
  /** Bytes seen in all, kept or not. */
  readonly totalBytes: number;
  /** True once more bytes arrived than the cap allows. */
  readonly truncated: boolean;
  /** The kept bytes. */
  bytes(): Buffer;
  /** The kept bytes as UTF-8; a character cut in half by the cap is dropped, not mangled. */
  text(): string;
}

/**
 * Creates a collector that keeps at most `maxBytes`: output of child processes and HTTP bodies
 * is capped so one call cannot fill the server's memory.
 * @example const out = createByteCollector(1024); stream.on('data', (c) => out.push(c) || stop());
 */
export function createByteCollector(maxBytes: number): ByteCollector {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    push(chunk) {
      total += chunk.byteLength;
      const room = maxBytes - kept;
      if (room > 0) {
        const part = Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(room, chunk.byteLength));
        chunks.push(Buffer.from(part));
        kept += part.byteLength;
      }
      return total <= maxBytes;
    },
    get totalBytes() {
      return total;
    },
    get truncated() {
      return total > maxBytes;
    },
    bytes() {
      return Buffer.concat(chunks, kept);
    },
    text() {
      const buffer = Buffer.concat(chunks, kept);
      const end = total > maxBytes ? completeUtf8End(buffer) : buffer.length;
      return buffer.subarray(0, end).toString('utf8');
    },
  };
}

/** Where the last complete UTF-8 character ends: a cut sequence at the very end is left out. */
function completeUtf8End(buffer: Buffer): number {
  // Walk back over at most 3 continuation bytes (10xxxxxx) to the lead byte of the last character.
  let lead = buffer.length - 1;
  while (lead >= 0 && buffer.length - lead <= 4 && ((buffer[lead] as number) & 0xc0) === 0x80) lead--;
  if (lead < 0) return buffer.length;
  const byte = buffer[lead] as number;
  const expected = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return buffer.length - lead < expected ? lead : buffer.length;
}
