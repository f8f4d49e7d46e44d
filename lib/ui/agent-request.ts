/**
 * What the copy buttons of a trace header need: the call as a model sent it, and the agent's
 * request as curl. Built from the redacted arguments (raw ones never reach the browser), so a
 * secret arrives as `[REDACTED]`: this copies the request's shape, it is not a replay (replay
 * runs on the server, from the sealed arguments).
 */
export interface CopyableCall {
  toolCallId: string;
  tool: string;
  /** Redacted arguments: raw arguments never reach the browser. */
  arguments: unknown;
  sessionId: string | null;
}

/** The call in OpenAI `tool_calls` form, arguments as a JSON string. */
export function toolCallJson(call: CopyableCall) {
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return { id: call.toolCallId, type: 'function' as const, function: { name: call.tool, arguments: args } };
}

/** The agent's request body of `POST /api/v1/tool-calls` for the call, with its redacted arguments. */
export function agentRequestBody(call: CopyableCall) {
  return {
    ...(call.sessionId ? { session_id: call.sessionId } : {}),
    tool_calls: [toolCallJson(call)],
  };
}

/** Single-quotes text for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A curl command that sends `body` to the agents' endpoint.
 * @example curlCommand('http://127.0.0.1:3000', body)
 */
export function curlCommand(origin: string, body: unknown): string {
  return [
    `curl -sS -X POST ${shellQuote(`${origin}/api/v1/tool-calls`)}`,
    `  -H 'content-type: application/json'`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ].join(' \\\n');
}

/** The first call a new user can send: a calculator call in OpenAI form. */
export const FIRST_CALL_BODY = {
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }],
};
