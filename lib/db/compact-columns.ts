import { type Attempt, STAGE_NAMES, type TraceStage } from '../executor/types';

/**
 * Compact text for the `stages`, `attempts` and `model_message` columns: they held most of a
 * typical call's bytes (six stage objects repeating their key names were ≈ 600 bytes, the model
 * message a second copy of the output). Both stores keep this form; the decoders also read the
 * plain JSON objects written before migration 0010, so old rows need no rewrite.
 */

/**
 * Stage details most calls share, written as their index here. Append only: a stored index
 * must keep meaning the same text.
 */
const COMMON_DETAILS = [
  'JSON string',
  'finalized',
  '1 attempt',
  'default for none: allow',
  'default for read: allow',
  'default for write: ask',
  'default for exec: ask',
  'default for write: allow',
  'default for exec: allow',
] as const;
const detailIndex = new Map<string, number>(COMMON_DETAILS.map((detail, index) => [detail, index]));

/** `[startedAt, durationMs, detail?, status?]`: a detail is a COMMON_DETAILS index or its text, null when absent. */
type StageTail =
  | [number, number]
  | [number, number, number | string | null]
  | [number, number, number | string | null, string];
/** A stage in its usual place (`STAGE_NAMES` order) leaves its name out; any other starts with it. */
type StageTuple = StageTail | [string, ...StageTail];

/**
 * Encodes stages as JSON tuples: `[startedAt, durationMs]`, then the detail (a common one as a
 * number) and the status only when they are not null and `ok`; the name only when the stage is
 * not the one the usual order puts there.
 * @example encodeStages([{ name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.1, detail: 'JSON string' }]) // '[[0,0.1,0]]'
 */
export function encodeStages(stages: readonly TraceStage[]): string {
  // Written out by hand, the same text JSON.stringify gives the tuples: this runs for every call
  // written, and building the arrays only to stringify them was most of its cost.
  let text = '[';
  for (let index = 0; index < stages.length; index++) {
    const stage = stages[index] as TraceStage;
    if (index > 0) text += ',';
    text += STAGE_NAMES[index] === stage.name ? '[' : `[${JSON.stringify(stage.name)},`;
    text += `${jsonNumber(stage.startedAt)},${jsonNumber(stage.durationMs)}`;
    const detail = stage.detail === null ? null : (detailIndex.get(stage.detail) ?? stage.detail);
    if (stage.status !== 'ok' || detail !== null) text += `,${JSON.stringify(detail)}`;
    if (stage.status !== 'ok') text += `,${JSON.stringify(stage.status)}`;
    text += ']';
  }
  return `${text}]`;
}

/** A number as JSON writes it (`null` for NaN and the infinities). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** Reads `encodeStages`' text, or the JSON objects of rows written before it. */
export function decodeStages(text: string): TraceStage[] {
  const parsed = JSON.parse(text) as (StageTuple | TraceStage)[];
  return parsed.map((stage, index) => {
    if (!Array.isArray(stage)) return stage;
    const named = typeof stage[0] === 'string';
    const name = named ? (stage[0] as string) : STAGE_NAMES[index];
    const [startedAt, durationMs, detail = null, status = 'ok'] = (named ? stage.slice(1) : stage) as StageTail;
    return {
      name,
      status,
      startedAt,
      durationMs,
      detail: typeof detail === 'number' ? (COMMON_DETAILS[detail] ?? null) : detail,
    } as TraceStage;
  });
}

/** The fields of an attempt that differ from what most attempts hold; absent when none does. */
type AttemptExtras = Partial<
  Pick<Attempt, 'number' | 'tool' | 'fallback' | 'error' | 'backoffMs' | 'backoffReason' | 'fault'>
>;
/** An attempt as a tuple: `[startedAt, durationMs, outcome, timeoutMs (null when absent), extras?]`. */
type AttemptTuple = [number, number, string, number | null] | [number, number, string, number | null, AttemptExtras];

/**
 * Encodes attempts as JSON tuples: the number, tool, fallback, error, backoff and fault are
 * written only where they differ from the usual (`index + 1`, the call's tool, false, null).
 */
export function encodeAttempts(attempts: readonly Attempt[], tool: string): string {
  if (attempts.length === 0) return '[]';
  const tuples: AttemptTuple[] = attempts.map((attempt, index) => {
    const extras: AttemptExtras = {};
    if (attempt.number !== index + 1) extras.number = attempt.number;
    if (attempt.tool !== tool) extras.tool = attempt.tool;
    if (attempt.fallback) extras.fallback = true;
    if (attempt.error !== null) extras.error = attempt.error;
    if (attempt.backoffMs !== null) extras.backoffMs = attempt.backoffMs;
    if (attempt.backoffReason !== undefined) extras.backoffReason = attempt.backoffReason;
    if (attempt.fault !== null) extras.fault = attempt.fault;
    const tuple: AttemptTuple = [attempt.startedAt, attempt.durationMs, attempt.outcome, attempt.timeoutMs ?? null];
    return Object.keys(extras).length > 0 ? [...tuple, extras] : tuple;
  });
  return JSON.stringify(tuples);
}

/** Reads `encodeAttempts`' text (for a call of `tool`), or the JSON objects of rows written before it. */
export function decodeAttempts(text: string, tool: string): Attempt[] {
  const parsed = JSON.parse(text) as (AttemptTuple | Attempt)[];
  return parsed.map((attempt, index) => {
    if (!Array.isArray(attempt)) return attempt;
    const [startedAt, durationMs, outcome, timeoutMs, extras = {}] = attempt;
    const decoded: Attempt = {
      number: extras.number ?? index + 1,
      tool: extras.tool ?? tool,
      fallback: extras.fallback ?? false,
      startedAt,
      durationMs,
      outcome: outcome as Attempt['outcome'],
      error: extras.error ?? null,
      backoffMs: extras.backoffMs ?? null,
      fault: extras.fault ?? null,
    };
    if (timeoutMs !== null) decoded.timeoutMs = timeoutMs;
    if (extras.backoffReason !== undefined) decoded.backoffReason = extras.backoffReason;
    return decoded;
  });
}

/**
 * `model_message` when it is the output's JSON text, as most successful calls' messages are: a
 * lone NUL, which no message written as itself can be (a message starting with NUL is stored
 * with one more in front, see `encodeModelMessage`).
 */
const SAME_AS_OUTPUT = '\u0000';

/** The stored form of a model message, given the stored output text. */
export function encodeModelMessage(message: string | null, output: string | null): string | null {
  if (message === null) return null;
  if (message === output) return SAME_AS_OUTPUT;
  return message.startsWith(SAME_AS_OUTPUT) ? SAME_AS_OUTPUT + message : message;
}

/** Reads `encodeModelMessage`'s form back, given the stored output text. */
export function decodeModelMessage(stored: string | null, output: string | null): string | null {
  if (stored === null) return null;
  if (stored === SAME_AS_OUTPUT) return output;
  return stored.startsWith(SAME_AS_OUTPUT) ? stored.slice(1) : stored;
}
