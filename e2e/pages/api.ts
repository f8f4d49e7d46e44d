import type { APIRequestContext } from '@playwright/test';

export interface PostedCall {
  traceId: string;
  status: string;
  /** The tool's output when it succeeded. */
  output?: unknown;
  error?: { code: string; message: string } | null;
}

/** Sends one OpenAI-style tool call through `POST /api/v1/tool-calls`; returns its trace id and status. */
export async function postToolCall(
  request: APIRequestContext,
  call: { id: string; name: string; arguments: unknown; sessionId?: string; wait?: boolean },
): Promise<PostedCall> {
  const response = await request.post('/api/v1/tool-calls', {
    data: {
      ...(call.sessionId ? { session_id: call.sessionId } : {}),
      ...(call.wait === undefined ? {} : { wait: call.wait }),
      tool_calls: [
        {
          id: call.id,
          type: 'function',
          function: {
            name: call.name,
            arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          },
        },
      ],
    },
  });
  if (!response.ok()) throw new Error(`POST /api/v1/tool-calls: HTTP ${response.status()} ${await response.text()}`);
  const body = (await response.json()) as {
    results: { trace_id: string; status: string; output?: unknown; error?: PostedCall['error'] }[];
  };
  const result = body.results[0];
  if (!result) throw new Error('no result');
  return { traceId: result.trace_id, status: result.status, output: result.output, error: result.error ?? null };
}

/** A name unique to this test run, for sessions and call ids that isolate parallel tests. */
export function unique(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
