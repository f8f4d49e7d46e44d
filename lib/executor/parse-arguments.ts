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
      error: errorData('INVALID_ARGUMENTS', `The arguments are not valid JSON: ${(error as Error).message}.`, {
        hint: 'Send the arguments as one JSON object, with double-quoted keys and no trailing commas.',
        details: { received: args.length > 200 ? `${args.slice(0, 200)}…` : args },
        stage: 'parse',
      }),
    };
  }
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
