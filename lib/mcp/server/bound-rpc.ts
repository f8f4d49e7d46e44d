import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { boundDetails, boundText } from '../../executor/bound-error';

/**
 * Values an `initialize` request may hold in its params (a real one holds a few dozen): the SDK
 * checks it with zod, which makes an issue for each wrong item of an array (`clientInfo.icons`),
 * and words every one into its error message — 100,000 of them took 0.5 s of the event loop and
 * made a 21 MB answer.
 */
export const MAX_INITIALIZE_VALUES = 10_000;

/** Whether any message of a POST body is an `initialize` whose params hold more than MAX_INITIALIZE_VALUES values. */
export function hasOversizedInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (message === null || typeof message !== 'object') continue;
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (method === 'initialize' && holdsMoreThan(params, MAX_INITIALIZE_VALUES)) return true;
  }
  return false;
}

/** Whether `value` holds more than `max` values in all, counted with a stack that stops at `max`. */
function holdsMoreThan(value: unknown, max: number): boolean {
  const stack: unknown[] = [value];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    if (++count > max) return true;
    if (node !== null && typeof node === 'object') {
      for (const child of Object.values(node)) {
        stack.push(child);
        if (stack.length + count > max) return true;
      }
    }
  }
  return false;
}

/**
 * Bounds the JSON-RPC errors a session's transport sends (see `bound-error.ts`): their message
 * and data. The SDK words a request's zod issues into its error message, whatever their number.
 */
export function boundRpcErrors(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(boundRpcError(message), options);
}

function boundRpcError(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message)) return message;
  const { error } = message;
  const text = boundText(error.message);
  const data = error.data === undefined ? undefined : boundDetails(error.data);
  if (text === error.message && data === error.data) return message;
  return { ...message, error: { ...error, message: text, ...(data === undefined ? {} : { data }) } };
}
