import { MAX_STDIO_MESSAGE_BYTES, OVERSIZED_MESSAGE_CODE } from './line-reader';

/**
 * Bytes kept of the body of an HTTP error answer (a 4xx or 5xx, a redirect not followed): the
 * SDK quotes it in an error message, which keeps 16,000 characters of it at most anyway.
 */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** The SSE event type that carries away an oversized event's start: the SDK reads only `message` events. */
const DROPPED_EVENT = 'toolscope-oversized';
/** The request id at the end of a JSON-RPC request as the SDK writes it (`{...request, jsonrpc, id}`). */
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;

/**
 * An answer from an upstream HTTP server over the bound: its JSON-RPC code makes the call fail
 * OUTPUT_LIMIT, as an oversized stdio line does (see `upstream-server.ts`).
 */
export class OversizedAnswerError extends Error {
  override readonly name = 'OversizedAnswerError';
  readonly code = OVERSIZED_MESSAGE_CODE;
  readonly data: { bytes: number; limit_bytes: number };

  constructor(bytes: number, maxBytes: number) {
    super(oversizedMessage(bytes, maxBytes));
    this.data = { bytes, limit_bytes: maxBytes };
  }
}

function oversizedMessage(bytes: number, maxBytes: number): string {
  return `its answer was over the ${maxBytes / (1024 * 1024)} MiB an MCP message may hold (stopped at ${bytes} bytes)`;
}

/**
 * A fetch for the SDK's Streamable HTTP transport that holds no answer past `maxBytes` (the
 * stdio bound by default): the SDK reads a JSON answer whole and an SSE event whole, so a server
 * answering without end grew Toolscope's memory without end and kept the call waiting for its
 * timeout. Each answer's body is counted as it streams:
 * - a JSON answer (or any other but SSE) over the bound errors with OversizedAnswerError, which
 *   the SDK throws from the request: the call fails OUTPUT_LIMIT at once;
 * - an SSE stream may run for ever, but each of its events is bounded: at an event over the
 *   bound, what came of it is closed as an event the SDK ignores, the request it answers (the
 *   POST's own) gets the JSON-RPC error that fails it OUTPUT_LIMIT, and the stream ends; a GET
 *   stream (no request of its own) errors, and the SDK opens it again, once: a GET that would
 *   resume where an overflowed one did is answered 405 here;
 * - an error answer's body is cut to MAX_ERROR_BODY_BYTES (it only goes into an error message).
 * The body read is cancelled either way: the connection stops at the bound.
 */
export function createBoundedFetch(maxBytes = MAX_STDIO_MESSAGE_BYTES, base: typeof fetch = fetch): typeof fetch {
  /** The `Last-Event-ID`s (`''` for none) of GET streams that overflowed: not opened again. */
  const overflowed = new Set<string>();
  return async (input, init) => {
    const get = (init?.method ?? 'GET').toUpperCase() === 'GET';
    const resumeAt = get ? (new Headers(init?.headers).get('last-event-id') ?? '') : '';
    // The SDK opens a GET stream again (resuming at its last event) when it errors: a server that
    // sends the same oversized event each time would be read 10 MiB a second for ever. A 405 is
    // what the SDK takes for "no stream here", and stops.
    if (get && overflowed.has(resumeAt)) {
      return new Response(null, { status: 405, statusText: 'Its events were over the bound of an MCP message' });
    }
    const response = await base(input, init);
    const body = response.body;
    if (!body) return response;
    let bounded: TransformStream<Uint8Array, Uint8Array>;
    if (!response.ok) bounded = cutAt(MAX_ERROR_BODY_BYTES);
    else if (isEventStream(response.headers.get('content-type'))) {
      bounded = boundEvents(maxBytes, init?.body, () => {
        if (get) overflowed.add(resumeAt);
      });
    } else bounded = boundBody(maxBytes);
    return new Response(body.pipeThrough(bounded), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function isEventStream(contentType: string | null): boolean {
  return (contentType?.split(';')[0] ?? '').trim().toLowerCase() === 'text/event-stream';
}

/** Passes a body until it has passed `maxBytes`, then errors with OversizedAnswerError. */
function boundBody(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > maxBytes) controller.error(new OversizedAnswerError(size, maxBytes));
      else controller.enqueue(chunk);
    },
  });
}

/** Passes the first `maxBytes` of a body, then ends it. */
function cutAt(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const room = maxBytes - size;
      size += chunk.byteLength;
      if (chunk.byteLength < room) return controller.enqueue(chunk);
      if (room > 0) controller.enqueue(chunk.subarray(0, room));
      controller.terminate();
    },
  });
}

/** The id of the JSON-RPC request a POST body holds (looked for only when an answer is oversized). */
function requestIdOf(body: unknown): string | number | null {
  if (typeof body !== 'string') return null;
  const match = ID_AT_END.exec(body.slice(-512));
  return match ? (JSON.parse(match[1] as string) as string | number) : null;
}

/**
 * Bounds each event of an SSE stream: an event ends at an empty line; bytes since the last one
 * are counted, scanning each chunk once for its newlines (a line ending `\r\n` or `\n`; a stream
 * of bare `\r` line ends is counted as one event).
 */
function boundEvents(
  maxBytes: number,
  requestBody: unknown,
  overflowed: () => void,
): TransformStream<Uint8Array, Uint8Array> {
  const encoder = new TextEncoder();
  /** Bytes of the stream so far, and where its current event began. */
  let offset = 0;
  let eventStart = 0;
  /** Bytes of the current line before this chunk, and the last byte seen. */
  let lineBytes = 0;
  let lastByte = -1;
  /** Whether what was passed on ends a line (or nothing was). */
  let passedEndsLine = true;

  function overflow(controller: TransformStreamDefaultController<Uint8Array>, bytes: number): void {
    overflowed();
    const id = requestIdOf(requestBody);
    if (id === null) {
      controller.error(new OversizedAnswerError(bytes, maxBytes));
      return;
    }
    const answer = {
      jsonrpc: '2.0',
      id,
      error: {
        code: OVERSIZED_MESSAGE_CODE,
        message: oversizedMessage(bytes, maxBytes),
        data: { bytes, limit_bytes: maxBytes },
      },
    };
    // The part of the event already passed on ends as an event of a type the SDK does not read.
    const close = `${passedEndsLine ? '' : '\n'}event: ${DROPPED_EVENT}\n\n`;
    controller.enqueue(encoder.encode(`${close}data: ${JSON.stringify(answer)}\n\n`));
    controller.terminate();
  }

  return new TransformStream({
    transform(chunk, controller) {
      let from = 0;
      for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
        const before = newline > from ? (chunk[newline - 1] as number) : lastByte;
        const line = lineBytes + (newline - from);
        if (line === 0 || (line === 1 && before === 13)) {
          // An empty line: the event ends here.
          const eventBytes = offset + newline + 1 - eventStart;
          if (eventBytes > maxBytes) return overflow(controller, eventBytes);
          eventStart = offset + newline + 1;
        }
        lineBytes = 0;
        lastByte = 10;
        from = newline + 1;
      }
      if (from < chunk.length) {
        lineBytes += chunk.length - from;
        lastByte = chunk[chunk.length - 1] as number;
      }
      offset += chunk.byteLength;
      if (offset - eventStart > maxBytes) return overflow(controller, offset - eventStart);
      controller.enqueue(chunk);
      if (chunk.byteLength > 0) passedEndsLine = chunk[chunk.length - 1] === 10;
    },
  });
}
