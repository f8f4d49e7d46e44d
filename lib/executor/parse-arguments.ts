import { errorData } from './errors';
import type { ToolErrorData } from './types';

export type ParsedArguments = { ok: true; value: unknown } | { ok: false; error: ToolErrorData };

/**
 * Stage 1: arguments arrive as a JSON string (OpenAI) or an object (Anthropic, MCP, forms).
 * An empty string means "no arguments", as some models send it for parameterless tools.
 */
export function parseArguments(args: unknown): ParsedArguments {
  if (args === undefined || args === null) return { ok: true, value: {} };
  if (typeof args !== 'string') return nestsTooDeep(args) ? tooDeep() : { ok: true, value: args };
  if (args.trim() === '') return { ok: true, value: {} };
  try {
    const value: unknown = JSON.parse(args);
    // Nesting takes two characters a level: a short text cannot nest too deep, and is not walked.
    return args.length > 2 * MAX_ARGUMENT_DEPTH && nestsTooDeep(value) ? tooDeep() : { ok: true, value };
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
 * Arguments may nest this many levels deep. Deeper ones are refused here, before anything that
 * walks them by recursion (validation, the store's JSON) could overflow the stack and lose the trace.
 */
export const MAX_ARGUMENT_DEPTH = 256;

/** Whether objects and arrays in `value` nest deeper than `MAX_ARGUMENT_DEPTH`; a walk with its own stack. */
function nestsTooDeep(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth > MAX_ARGUMENT_DEPTH) return true;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

function tooDeep(): ParsedArguments {
  return {
    ok: false,
    error: errorData('INVALID_ARGUMENTS', `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels.`, {
      hint: 'Send flatter arguments: no tool takes input nested this deep.',
      details: { maxDepth: MAX_ARGUMENT_DEPTH },
      stage: 'parse',
    }),
  };
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
