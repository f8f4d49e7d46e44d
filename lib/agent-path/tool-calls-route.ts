import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { runToolCalls } from '../api/handlers';
import { parseJsonText } from '../api/http';
import { guardJsonBody } from '../api/request-guard';
import type { CancelReason } from '../executor/types';
import { traceContextFromHeaders } from '../otel/trace-context';
import type { Toolscope } from '../server/create-toolscope';
import { readBoundedBody } from './read-body';
import { sendError, sendJson } from './respond';

/**
 * `POST /api/v1/tool-calls` on the agent path: the same guard and `runToolCalls` as Next's route,
 * with the body read by `readBoundedBody` from Node's stream. A client that goes away aborts its
 * calls, as `request.signal` does on Next's route. A W3C `traceparent` becomes the calls' parent
 * span (`lib/otel`). Throws only what the dispatcher turns into a 500.
 */
export async function serveToolCalls(req: IncomingMessage, res: ServerResponse, ts: Toolscope): Promise<void> {
  const json = guardJsonBody(req.headers['content-type']);
  if (!json.ok) return sendError(res, json.status, json.code, json.message);
  const { maxBodyBytes, bodyTimeoutMs } = ts.config.limits;
  const text = (await readBoundedBody(req, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs })).toString('utf8');
  const body = parseJsonText(text);
  const trace = traceContextFromHeaders(req.headers.traceparent, req.headers.tracestate);
  const answer = await runToolCalls(body, ts, connectionSignal(req.socket), trace);
  sendJson(res, answer.status, answer.body);
}

/** What the trace says: the calls were cancelled because nobody was left to answer. */
const CLIENT_GONE: CancelReason = { by: 'client', reason: 'the connection closed before the answer' };
const signals = new WeakMap<Socket, AbortSignal>();

/**
 * A signal that aborts when the client's connection closes: the calls of every request on it
 * then have nobody to answer. One per connection rather than one per request, because an
 * AbortController is an EventTarget that costs about as much as a bare HTTP answer, and a
 * keep-alive client sends thousands of requests on one socket. A connection closed by the
 * server after its answers were sent aborts nothing: no call is linked to it any more.
 */
function connectionSignal(socket: Socket): AbortSignal {
  let signal = signals.get(socket);
  if (signal) return signal;
  const controller = new AbortController();
  signal = controller.signal;
  signals.set(socket, signal);
  socket.once('close', () => controller.abort(CLIENT_GONE));
  return signal;
}
