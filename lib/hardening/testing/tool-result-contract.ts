import { CALL_STATUSES } from '../../executor/types';

/**
 * The ToolResult contract (DESIGN.md) as `POST /api/v1/tool-calls` answers it: `success` true ⇔
 * `error` absent; an error carries a stable `code`, a `message`, `retryable` and a `kind`;
 * `latency_ms ≥ 0`; the metadata names the trace. Also: one result and one message per call, in
 * input order. Returns what is wrong, or null.
 */
export function toolCallsAnswerProblem(body: unknown, calls: number | null): string | null {
  const answer = body as {
    results?: unknown[];
    messages?: { role?: unknown; tool_call_id?: unknown; content?: unknown }[];
    tool_results?: { type?: unknown; tool_use_id?: unknown; content?: unknown; is_error?: unknown }[];
  };
  if (!Array.isArray(answer?.results)) return 'no results array';
  if (calls !== null && answer.results.length !== calls) return `${answer.results.length} results for ${calls} calls`;
  const replies = answer.messages ?? answer.tool_results;
  if (!Array.isArray(replies) || replies.length !== answer.results.length) return 'not one message per result';
  for (const [i, item] of answer.results.entries()) {
    const problem = resultProblem(item);
    if (problem) return `results[${i}]: ${problem}`;
    const result = item as { tool_call_id: string; success: boolean; status: string };
    const reply = replies[i] as Record<string, unknown>;
    if (answer.messages) {
      if (reply.role !== 'tool' || reply.tool_call_id !== result.tool_call_id || typeof reply.content !== 'string') {
        return `messages[${i}] is not the tool message of results[${i}]`;
      }
    } else if (
      reply.type !== 'tool_result' ||
      reply.tool_use_id !== result.tool_call_id ||
      typeof reply.content !== 'string' ||
      reply.is_error !== (!result.success && result.status !== 'awaiting_approval')
    ) {
      return `tool_results[${i}] is not the block of results[${i}]`;
    }
  }
  return null;
}

function resultProblem(item: unknown): string | null {
  const r = item as Record<string, unknown> & {
    error?: Record<string, unknown> | null;
    metadata?: Record<string, unknown>;
  };
  if (typeof r !== 'object' || r === null) return 'not an object';
  if (typeof r.success !== 'boolean') return 'success is not a boolean';
  if (r.success !== (r.error === null || r.error === undefined)) return 'success ⇔ no error does not hold';
  if (r.success && r.status !== 'succeeded') return `success with status ${String(r.status)}`;
  if (!(CALL_STATUSES as readonly unknown[]).includes(r.status)) return `status ${String(r.status)}`;
  if (r.error) {
    const e = r.error;
    if (typeof e.code !== 'string' || e.code === '') return 'error without a code';
    if (typeof e.message !== 'string' || e.message === '') return 'error without a message';
    if (typeof e.retryable !== 'boolean') return 'error without retryable';
    if (typeof e.kind !== 'string') return 'error without a kind';
  }
  if (typeof r.latency_ms !== 'number' || !(r.latency_ms >= 0)) return `latency_ms ${String(r.latency_ms)}`;
  if (typeof r.trace_id !== 'string' || r.trace_id === '') return 'no trace_id';
  if (r.metadata?.trace_id !== r.trace_id) return 'metadata.trace_id is not trace_id';
  if (typeof r.tool_call_id !== 'string') return 'no tool_call_id';
  return null;
}
