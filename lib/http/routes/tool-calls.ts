import { runToolCalls } from '../../calls/run-tool-calls';
import { traceContextFromHeaders } from '../../otel/trace-context';
import { clientSignal } from '../client-signal';
import { jsonBody } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

export default defineRoutes([
  {
    /**
     * `POST /api/v1/tool-calls`: OpenAI `tool_calls` or Anthropic `tool_use` blocks through the
     * pipeline (`runToolCalls`). A client that goes away cancels its calls, but releases those
     * that have waited for a person (they stay pending, or run on once approved); a W3C
     * `traceparent` becomes the calls' parent span.
     */
    method: 'POST',
    path: '/api/v1/tool-calls',
    action: 'calls.run',
    body: 'json',
    async handle(c, ts) {
      const headers = c.req.raw.headers;
      const traceContext = traceContextFromHeaders(headers.get('traceparent'), headers.get('tracestate'));
      const origin = { principal: c.get('principal'), signal: clientSignal(c), traceContext };
      return json(c, await runToolCalls(ts, jsonBody(c), origin));
    },
  },
]);
