import { errorData } from './errors';
import type { ToolErrorData } from './types';

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; error: ToolErrorData };

/**
 * Stage 1: arguments arrive as a JSON string (OpenAI) or an object (Anthropic, MCP, forms).
 * An empty string means "no arguments", as some models send it for parameterless tools.
 */
export function parseArguments(args: unknown): ParsedArguments {
  if (args === undefined || args === null) return { ok: true, value: {} };
  if (typeof args !== 'string') return { ok: true, value: args };
  if (args.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(args) };
  } catch (error) {
    return {
      ok: false,
      error: errorData(
        'INVALID_ARGUMENTS',
        `The arguments are not valid JSON: ${withoutSource((error as Error).message)}.`,
        {
          hint: 'Send the arguments as one JSON object, with double-quoted keys and no trailing commas.',
          details: { received: args.length > 200 ? `${args.slice(0, 200)}…` : args },
          stage: 'parse',
        },
      ),
    };
  }
}

/**
 * V8 quotes a piece of the text in some messages (`Unexpected token 'h', "hunter2" is not valid
 * JSON`): cut where it could hold part of a secret that no scrubbing would then recognise.
 */
function withoutSource(message: string): string {
  const quoted = message.indexOf(', "');
  return quoted === -1 || !message.endsWith(' is not valid JSON')
    ? message
    : `${message.slice(0, quoted)}, not valid JSON`;
}

/** A parse error whose `received` is the (redacted) text instead of the text as sent. */
export function withReceived(error: ToolErrorData, redacted: string): ToolErrorData {
  if (!error.details || !('received' in error.details)) return error;
  const received = redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted;
  return { ...error, details: { ...error.details, received } };
}

/** The arguments as text, kept (sealed) for replay. */
export function rawArgumentsOf(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args === undefined) return '';
  try {
    return JSON.stringify(args) ?? '';
  } catch {
    return String(args);
  }
}
