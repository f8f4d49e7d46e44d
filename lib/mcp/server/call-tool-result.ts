import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { modelMessageContent } from '../../executor/model-message';
import type { ToolResult } from '../../executor/types';

/**
 * A call's result as MCP's `tools/call` answers it: the text the model receives from the HTTP API
 * (`modelMessageContent`: the output, or the error described for the model) as one text block;
 * an output that is a JSON object also as `structuredContent`; a failure as `isError: true` — a
 * failing tool is a result the model reads, never a protocol error. `_meta` names the trace.
 */
export function toCallToolResult(result: ToolResult): CallToolResult {
  const answer: CallToolResult = {
    content: [{ type: 'text', text: modelMessageContent(result) }],
    _meta: { 'toolscope/trace_id': result.traceId },
  };
  if (!result.success) answer.isError = true;
  else if (isJsonObject(result.output)) answer.structuredContent = result.output;
  return answer;
}

/** What MCP's `structuredContent` may hold: a JSON object (not an array, not null). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A call the executor could not answer (a bug of ours): the model reads why, as with any failure. */
export function unavailableResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
