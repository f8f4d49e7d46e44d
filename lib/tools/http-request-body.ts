import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ToolError } from '../executor/errors';
import { createByteCollector } from './byte-collector';
import { formatBytes } from './format-bytes';

/** Content codings decoded; at most this many layered on one body. */
const MAX_CODINGS = 2;
/** Encoded bytes allowed past the decoded cap: headers, trailers and stored-block overhead of real bodies. */
const ENCODED_SLACK_BYTES = 64 * 1024;

export interface ReadBody {
  /** The decoded body, at most `maxBytes`. */
  bytes: Buffer;
  truncated: boolean;
  note?: string;
}

/**
 * Reads a response body, decoded (gzip, deflate, br) and cut at `maxBytes` of decoded bytes: a
 * decompression bomb stops at the cap, and the transfer is aborted there, not downloaded on. The
 * encoded bytes are capped too (the cap plus a little), so a stream that decodes to nothing cannot
 * run on. Unknown codings, or more than two layered, are returned as they came, with a note.
 */
export async function readBody(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<ReadBody> {
  const codings = contentCodings(response.headers['content-encoding']);
  const decodable = codings.length <= MAX_CODINGS && codings.every((coding) => DECODERS[coding] !== undefined);
  const decoders = decodable ? [...codings].reverse().map((coding) => (DECODERS[coding] as () => Transform)()) : [];
  const collector = createByteCollector(maxBytes);
  let encodedBytes = 0;
  let encodedOver = false;
  const encodedCap = decoders.length > 0 ? maxBytes + ENCODED_SLACK_BYTES : Number.POSITIVE_INFINITY;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      encodedBytes += chunk.length;
      if (encodedBytes > encodedCap) {
        encodedOver = true;
        return callback(new CapReached());
      }
      callback(null, chunk);
    },
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      callback(collector.push(chunk) ? null : new CapReached());
    },
  });
  try {
    await pipeline(response, counter, ...(decoders.length > 0 ? decoders : [new PassThrough()]), sink, { signal });
  } catch (error) {
    if (!(error instanceof CapReached)) {
      if (signal.aborted) throw signal.reason;
      if (isDecodingError(error)) {
        throw ToolError.business('BODY_DECODING_FAILED', `The body is not valid ${codings.join(', ')} data.`, {
          cause: error,
          hint: 'The server sent a corrupt compressed body; ask for it uncompressed (accept-encoding: identity).',
        });
      }
      throw error;
    }
  }
  const notes: string[] = [];
  if (!decodable && codings.length > 0) {
    notes.push(`The body is encoded as "${codings.join(', ')}", which is not decoded; it is returned as it came.`);
  }
  if (encodedOver && !collector.truncated) {
    notes.push(`The encoded body passed ${formatBytes(encodedCap)} without decoding to that much; it was cut.`);
  }
  const result: ReadBody = { bytes: collector.bytes(), truncated: collector.truncated || encodedOver };
  if (notes.length > 0) result.note = notes.join(' ');
  return result;
}

/** Raised inside the pipeline when a cap is reached; stops it and closes the connection. */
class CapReached extends Error {}

// Truncated streams (a body cut short by the server) decode as far as they go, as browsers do.
const DECODERS: Record<string, (() => Transform) | undefined> = {
  gzip: () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH }),
  'x-gzip': () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH }),
  deflate: () => createInflate({ finishFlush: constants.Z_SYNC_FLUSH }),
  br: () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }),
};

function contentCodings(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** zlib's errors carry `Z_...` codes, brotli's `ERR__ERROR_...`; socket and stream errors neither. */
function isDecodingError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR'));
}
