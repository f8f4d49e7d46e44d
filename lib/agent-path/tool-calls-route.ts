import type { IncomingMessage, ServerResponse } from 'node:http';
import { runToolCalls } from '../api/handlers';
import { parseJsonText } from '../api/http';
import { guardJsonBody } from '../api/request-guard';
import type { Toolscope } from '../server/create-toolscope';
import { readBoundedBody } from './read-body';
import { sendError, sendJson } from './respond';

/**
 * `POST /api/v1/tool-calls` on the agent path: the same guard and `runToolCalls` as Next's route,
 * with the body read by `readBoundedBody` from Node's stream. A client that goes away aborts its
 * calls, as `request.signal` does on Next's route. Throws only what the dispatcher turns into a 500.
 */
export async function serveToolCalls(req: IncomingMessage, res: ServerResponse, ts: Toolscope): Promise<void> {
  const json = guardJsonBody(req.headers['content-type']);
  if (!json.ok) return sendError(res, json.status, json.code, json.message);
  const { maxBodyBytes, bodyTimeoutMs } = ts.config.limits;
  const text = (await readBoundedBody(req, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs })).toString('utf8');
  const body = parseJsonText(text);
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort(new Error('The client closed the connection.'));
  };
  res.once('close', onClose);
  try {
    const answer = await runToolCalls(body, ts, abort.signal);
    sendJson(res, answer.status, answer.body);
  } finally {
    res.off('close', onClose);
  }
}
