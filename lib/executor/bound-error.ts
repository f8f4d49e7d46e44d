import { jsonView } from './redact-walk';
import { truncateMiddle } from './truncate';
import type { ToolErrorData } from './types';

/**
 * Characters of an error's message (and hint) that a call, a stage detail or an API answer
 * keeps (what the model receives of an output by default): head and tail, with the
 * `…[truncated N of M characters]…` marker between.
 */
export const MAX_ERROR_MESSAGE_CHARS = 16_000;
/** Characters of JSON an error's `details` keep, about (keys, strings and numbers counted as written). */
export const MAX_ERROR_DETAILS_CHARS = 16_000;
/** Levels of objects and arrays an error's `details` keep; a deeper one is replaced by a note. */
export const MAX_ERROR_DETAILS_DEPTH = 16;
/** The key a cut `details` object gets, saying that (and how) it was cut. */
export const DETAILS_CUT_KEY = 'details_truncated';
/** What stands for an object or array nested deeper than MAX_ERROR_DETAILS_DEPTH. */
export const CUT_DEEPER_DETAILS = `[nested deeper than ${MAX_ERROR_DETAILS_DEPTH} levels: not kept]`;
/** Characters a string (or key) of the details keeps at most, so that one long text leaves room for the rest. */
export const MAX_DETAIL_STRING_CHARS = 4_000;
/** A cut string keeps at least this much (with its marker), however little of the budget is left. */
const MIN_STRING_CHARS = 256;

/**
 * An error bounded wherever it is recorded, stored, answered or told to the model: its message
 * and hint cut head and tail to MAX_ERROR_MESSAGE_CHARS, its details to MAX_ERROR_DETAILS_CHARS
 * and MAX_ERROR_DETAILS_DEPTH, every cut marked where it was made. An error is otherwise as big as
 * whatever made it (an upstream MCP server's error result is its whole text, a schema's issues
 * list every field of a huge argument): uncut, megabytes went into the attempt, the error, the
 * stage detail and the model message, then through the store and the search index on the event loop.
 * 1. Details over their bound lose the entries past it, strings kept whole, so `scrub` walks
 *    what is kept, not megabytes;
 * 2. `scrub` (the call's secrets) runs on what is left, before anything is cut inside a text: a
 *    secret the cut would split is replaced whole;
 * 3. message, hint and the strings of the details are cut.
 * An error within its bounds comes back as it is (after `scrub`): the check costs a few
 * comparisons and a walk of a few keys.
 */
export function boundError(
  error: ToolErrorData,
  scrub: (error: ToolErrorData) => ToolErrorData = (same) => same,
): ToolErrorData {
  const { details } = error;
  const trimmed = details && !detailsFit(details) ? { ...error, details: cutDetails(details, false) } : error;
  const scrubbed = scrub(trimmed);
  const message = scrubbed.message.length > MAX_ERROR_MESSAGE_CHARS;
  const hint = scrubbed.hint !== undefined && scrubbed.hint.length > MAX_ERROR_MESSAGE_CHARS;
  const cutDetailsToo = scrubbed.details !== undefined && !detailsFit(scrubbed.details);
  if (!message && !hint && !cutDetailsToo) return scrubbed;
  const bounded: ToolErrorData = { ...scrubbed };
  if (message) bounded.message = boundText(scrubbed.message);
  if (hint) bounded.hint = boundText(scrubbed.hint as string);
  if (cutDetailsToo) bounded.details = cutDetails(scrubbed.details as Record<string, unknown>, true);
  return bounded;
}

/** A text of an error (a message, a stage detail quoting one) cut head and tail to MAX_ERROR_MESSAGE_CHARS. */
export function boundText(text: string): string {
  return text.length <= MAX_ERROR_MESSAGE_CHARS ? text : truncateMiddle(text, MAX_ERROR_MESSAGE_CHARS).text;
}

/**
 * Any error details (an API error envelope's) within MAX_ERROR_DETAILS_CHARS and
 * MAX_ERROR_DETAILS_DEPTH: the value itself when it fits; else a string cut head and tail, an
 * object or array a copy with notes where entries were left out.
 */
export function boundDetails<T>(details: T): T {
  if (typeof details === 'string') return boundText(details) as T;
  if (details === null || typeof details !== 'object' || detailsFit(details)) return details;
  const wrapped = Array.isArray(details) ? { items: details } : (details as Record<string, unknown>);
  const cut = cutDetails(cutDetails(wrapped, false), true);
  return (Array.isArray(details) ? cut.items : cut) as T;
}

/** Characters a leaf takes in JSON, about. */
function leafChars(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value).length;
  return 5;
}

/**
 * What a cut copy may hold past MAX_ERROR_DETAILS_CHARS (the entry that crossed it, the notes of
 * what was left out): within it, details fit, so that bounding a bounded error again (the
 * executor bounds an attempt's error as it ends, and again as the call ends) changes nothing.
 */
const FIT_SLACK_CHARS = 2_048;

/**
 * Whether `details` is within both bounds: a walk with its own stack that stops as soon as it is
 * over (a cycle is over the budget, or too deep, soon enough).
 */
function detailsFit(details: object): boolean {
  let budget = MAX_ERROR_DETAILS_CHARS + FIT_SLACK_CHARS;
  const stack: unknown[] = [details];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const value = stack.pop();
    const depth = depths.pop() as number;
    if (value === null || typeof value !== 'object') {
      budget -= leafChars(value);
    } else if (depth > MAX_ERROR_DETAILS_DEPTH) {
      return false;
    } else if (Array.isArray(value)) {
      budget -= value.length + 2;
      for (let i = value.length - 1; i >= 0 && budget >= 0; i--) {
        stack.push(value[i]);
        depths.push(depth + 1);
      }
    } else {
      const view = jsonView(value);
      if (view !== value) {
        stack.push(view);
        depths.push(depth);
        continue;
      }
      const keys = Object.keys(value);
      budget -= 2;
      for (let i = 0; i < keys.length && budget >= 0; i++) {
        const key = keys[i] as string;
        budget -= key.length + 4;
        stack.push((value as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
    if (budget < 0) return false;
  }
  return true;
}

/** One object or array being copied: its entries in order, `i` the next one. */
interface Frame {
  src: Record<string, unknown> | unknown[];
  out: Record<string, unknown> | unknown[];
  keys: string[] | null;
  i: number;
  depth: number;
}

function put(out: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  if (Array.isArray(out)) out.push(value);
  // An own `__proto__` key (JSON.parse makes one) stays a key: assigning it would set the prototype.
  else if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true });
  else out[key] = value;
}

/**
 * A copy of `details` within the bounds, depth first and in order, in one of two passes.
 * - Entries (`cutStrings` false): what comes past the budget is left out, with a note where it
 *   was (`…[N more items not kept]` closing an array, a `…` key in an object); objects deeper
 *   than the bound become CUT_DEEPER_DETAILS; strings are kept whole, each counted as what it
 *   will keep once cut.
 * - Strings (`cutStrings` true): nothing more is left out; a string (or key) longer than
 *   MAX_DETAIL_STRING_CHARS or what is left is cut head and tail, keeping at least MIN_STRING_CHARS.
 * A copy that lost anything says so under DETAILS_CUT_KEY.
 */
function cutDetails(details: Record<string, unknown>, cutStrings: boolean): Record<string, unknown> {
  let budget = MAX_ERROR_DETAILS_CHARS;
  let cut = false;
  const root: Record<string, unknown> = {};
  const view = jsonView(details);
  const src = (view !== null && typeof view === 'object' && !Array.isArray(view) ? view : { value: view }) as Record<
    string,
    unknown
  >;
  const stack: Frame[] = [{ src, out: root, keys: Object.keys(src), i: 0, depth: 1 }];
  /** The characters a text may keep here: its own bound, or what is left of the budget. */
  const roomFor = () => Math.max(MIN_STRING_CHARS, Math.min(MAX_DETAIL_STRING_CHARS, budget - 2));
  const textOf = (text: string): string => {
    if (!cutStrings || text.length <= roomFor()) return text;
    cut = true;
    return truncateMiddle(text, roomFor()).text;
  };
  /** What a kept text costs: in the entries pass, what it will keep once cut. */
  const charge = (chars: number) => {
    budget -= cutStrings ? chars : Math.min(chars, roomFor() + 2);
  };
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const { keys, out } = frame;
    const length = keys ? keys.length : (frame.src as unknown[]).length;
    if (frame.i >= length) {
      stack.pop();
      continue;
    }
    if (!cutStrings && budget <= 0) {
      const rest = length - frame.i;
      if (Array.isArray(out)) out.push(`…[${rest} more ${rest === 1 ? 'item' : 'items'} not kept]`);
      else put(out, '…', `[${rest} more ${rest === 1 ? 'key' : 'keys'} not kept]`);
      cut = true;
      stack.pop();
      continue;
    }
    const index = frame.i++;
    let key = String(index);
    let value: unknown;
    if (keys) {
      key = keys[index] as string;
      value = (frame.src as Record<string, unknown>)[key];
      key = textOf(key);
      charge(key.length + 4);
    } else {
      value = (frame.src as unknown[])[index];
      budget -= 1;
    }
    if (value !== null && typeof value === 'object') value = jsonView(value);
    if (typeof value === 'string') {
      const text = textOf(value);
      charge(text.length + 2);
      put(out, key, text);
    } else if (value === null || typeof value !== 'object') {
      budget -= leafChars(value);
      put(out, key, value);
    } else if (frame.depth >= MAX_ERROR_DETAILS_DEPTH) {
      budget -= CUT_DEEPER_DETAILS.length + 2;
      put(out, key, CUT_DEEPER_DETAILS);
      cut = true;
    } else {
      const isArray = Array.isArray(value);
      const child: Record<string, unknown> | unknown[] = isArray ? [] : {};
      put(out, key, child);
      budget -= 2;
      stack.push({
        src: value as Record<string, unknown> | unknown[],
        out: child,
        keys: isArray ? null : Object.keys(value),
        i: 0,
        depth: frame.depth + 1,
      });
    }
  }
  if (cut) {
    root[DETAILS_CUT_KEY] =
      `cut to about ${MAX_ERROR_DETAILS_CHARS} characters and ${MAX_ERROR_DETAILS_DEPTH} levels: ` +
      'what is left out is marked where it was';
  }
  return root;
}
