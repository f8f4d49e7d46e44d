import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest message an upstream stdio server may send (the MCP SDK's own default bound). */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;
/**
 * The JSON-RPC error code of the answer that stands for a response over MAX_STDIO_MESSAGE_BYTES
 * (in the implementation-defined server error range, beside the SDK's -32000 and -32001).
 */
export const OVERSIZED_MESSAGE_CODE = -32090;

/** Bytes kept of each end of an oversized line: enough to find its request id. */
const ENDS_KEPT = 256;
/** The top-level id of a response: first after `jsonrpc`, or last before the closing brace. */
const ID_AT_START = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

export interface LineReaderEvents {
  /** A whole line, `\r` and `\n` taken off. */
  line(text: string): void;
  /**
   * A line over MAX_STDIO_MESSAGE_BYTES, dropped as it came: its byte count, and the request id
   * its ends name (null when neither does).
   */
  oversized(bytes: number, id: string | number | null): void;
}

/**
 * Splits a stdout stream into lines in linear time: each chunk is searched once for a newline,
 * and a line's chunks are joined once, when it is whole. (The SDK's ReadBuffer joins the whole
 * buffer again for every chunk and searches it from the start, so a message of many megabytes
 * cost the event loop quadratic time; past its 10 MiB bound it threw from the stream's `data`
 * handler, an uncaught exception, and the call waited for its timeout.) A line over
 * MAX_STDIO_MESSAGE_BYTES is not kept: only its ends, to say which request it answered.
 */
export function createLineReader(events: LineReaderEvents, maxBytes = MAX_STDIO_MESSAGE_BYTES) {
  let parts: Buffer[] = [];
  let size = 0;
  let head: Buffer | null = null;
  let tail = Buffer.alloc(0);

  function take(piece: Buffer): void {
    if (head === null && size + piece.length <= maxBytes) {
      parts.push(piece);
      size += piece.length;
      return;
    }
    // Over the bound: keep the ends only.
    if (head === null) {
      const joined = Buffer.concat([...parts, piece]);
      head = Buffer.from(joined.subarray(0, ENDS_KEPT));
      tail = Buffer.from(joined.subarray(-ENDS_KEPT));
      parts = [];
    } else {
      tail = Buffer.concat([tail, piece]).subarray(-ENDS_KEPT);
    }
    size += piece.length;
  }

  function end(): void {
    if (head === null) {
      const text = Buffer.concat(parts, size).toString('utf8');
      events.line(text.endsWith('\r') ? text.slice(0, -1) : text);
    } else {
      const match = ID_AT_START.exec(head.toString('utf8')) ?? ID_AT_END.exec(tail.toString('utf8'));
      events.oversized(size, match ? (JSON.parse(match[1] as string) as string | number) : null);
    }
    parts = [];
    size = 0;
    head = null;
    tail = Buffer.alloc(0);
  }

  return {
    /** Takes the next chunk of the stream; calls `line` or `oversized` for each line it ends. */
    push(chunk: Buffer): void {
      let from = 0;
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
        take(chunk.subarray(from, newline));
        end();
        from = newline + 1;
      }
      if (from < chunk.length) take(chunk.subarray(from));
    },
  };
}

/** The answer standing for an oversized response to request `id`: a JSON-RPC error saying so. */
export function oversizedAnswer(
  id: string | number,
  bytes: number,
  maxBytes = MAX_STDIO_MESSAGE_BYTES,
): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: OVERSIZED_MESSAGE_CODE,
      message: `its answer was ${bytes} bytes, over the ${maxBytes / (1024 * 1024)} MiB a stdio message may hold`,
      data: { bytes, limit_bytes: maxBytes },
    },
  };
}
