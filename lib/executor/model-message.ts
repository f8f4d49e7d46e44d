import type { ToolErrorData, ToolResult } from './types';

/** The text a model receives for a failed call: code, message, whether to retry, what to change. */
export function describeErrorForModel(error: ToolErrorData): string {
  const lines = [`Error ${error.code}: ${error.message}`];
  lines.push(error.retryable ? 'Retrying this call may succeed.' : 'Retrying the same call will fail the same way.');
  if (error.hint) lines.push(`What to do: ${error.hint}`);
  return lines.join('\n');
}

/**
 * The content of the message returned to the agent (OpenAI `role: "tool"`, Anthropic
 * `tool_result`): the output as text on success, a description of the error otherwise.
 */
export function modelMessageContent(result: Pick<ToolResult, 'success' | 'output' | 'error'>): string {
  if (!result.success && result.error) return describeErrorForModel(result.error);
  const { output } = result;
  if (typeof output === 'string') return output;
  return JSON.stringify(output ?? null);
}
