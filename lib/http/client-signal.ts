import type { Socket } from 'node:net';
import type { CancelReason } from '../executor/types';
import type { HttpContext } from './env';

/** What the trace says: the calls were cancelled because nobody was left to answer (see `signalIsDisconnect`). */
const CLIENT_GONE: CancelReason = { by: 'client', reason: 'the connection closed before the answer' };
const signals = new WeakMap<Socket, AbortSignal>();

/**
 * A signal that aborts when the request's client goes away: its calls then have nobody to answer.
 * Behind Node's server, one per connection rather than one per request — an AbortController is an
 * EventTarget that costs about as much as a bare HTTP answer, and a keep-alive client sends
 * thousands of requests on one socket; a connection closed by the server after its answers were
 * sent aborts nothing, no call being linked to it any more. Under Next, the request's own signal.
 */
export function clientSignal(c: HttpContext): AbortSignal {
  const socket = c.env?.incoming?.socket;
  if (!socket) return c.req.raw.signal;
  let signal = signals.get(socket);
  if (signal) return signal;
  const controller = new AbortController();
  signal = controller.signal;
  signals.set(socket, signal);
  socket.once('close', () => controller.abort(CLIENT_GONE));
  return signal;
}
