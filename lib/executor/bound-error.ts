import { truncateMiddle } from './truncate';
import type { ToolErrorData } from './types';

/**
 * Characters of a tool's error message that a call keeps (what the model receives of an output
 * by default): head and tail, with the `…[truncated N of M characters]…` marker between.
 */
export const MAX_ERROR_MESSAGE_CHARS = 16_000;

/**
 * An attempt's error with its message cut to MAX_ERROR_MESSAGE_CHARS. A tool's message is
 * otherwise unbounded (an upstream MCP server's error result is its whole text): uncut, megabytes
 * of it went into the attempt, the error, the execute stage's detail and the model message, then
 * through the store and the search index on the event loop. Cut after scrubbing, so a secret the
 * cut splits was already replaced whole.
 */
export function boundErrorMessage(error: ToolErrorData): ToolErrorData {
  if (error.message.length <= MAX_ERROR_MESSAGE_CHARS) return error;
  return { ...error, message: truncateMiddle(error.message, MAX_ERROR_MESSAGE_CHARS).text };
}
