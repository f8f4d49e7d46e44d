import { type Attempt, STAGE_NAMES, type ToolErrorData, type TraceStage } from '../executor/types';
import { ByteReader, byteWriter } from './byte-codec';

/**
 * Compact forms of the `stages`, `attempts` and `model_message` columns: they held most of a
 * typical call's bytes (six stage objects repeating their key names were ≈ 600 bytes, the model
 * message a second copy of the output or of the error). Stages and attempts are bytes since
 * migration 0012 (JSON tuples from 0010, JSON objects before); the decoders read every form, so
 * old rows need no rewrite. Both stores keep these forms.
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
/**
 * Detail indexes past COMMON_DETAILS: the detail starts with the call's error as the executor
 * writes it in the failed execute stage (`code: message`, or that without the message's final
 * full stop, as `joinDetail` cuts it), and the text that follows comes next (`; 1 attempt`).
 */
const ERROR_HEAD = 1000;
const ERROR_HEAD_CUT = 1001;

/** The heads ERROR_HEAD and ERROR_HEAD_CUT stand for, for a call's error. */
function errorHeads(error: ToolErrorData): [string, string | null] {
  const head = `${error.code}: ${error.message}`;
  return [head, head.endsWith('.') && !head.endsWith('..') ? head.slice(0, -1) : null];
}

/** `[startedAt, durationMs, detail?, status?]`: a detail is a COMMON_DETAILS index or its text, null when absent. */
type StageTail =
  | [number, number]
  | [number, number, number | string | null]
  | [number, number, number | string | null, string];
/** A stage in its usual place (`STAGE_NAMES` order) leaves its name out; any other starts with it. */
type StageTuple = StageTail | [string, ...StageTail];

/** What the `stages` and `attempts` columns hold: bytes since migration 0012, JSON text in older rows. */
export type StoredBytes = Buffer | Uint8Array | string;

/** The first byte of the binary forms: its version. */
const BINARY_V1 = 1;

const STAGE_STATUSES = ['ok', 'failed', 'skipped', 'waiting', 'running'] as const;
const stageStatusCode = new Map<string, number>(STAGE_STATUSES.map((status, index) => [status, index]));
const ATTEMPT_OUTCOMES = ['ok', 'error', 'timeout', 'cancelled', 'running'] as const;
const outcomeCode = new Map<string, number>(ATTEMPT_OUTCOMES.map((outcome, index) => [outcome, index]));
/** A status or outcome code meaning "its text follows" (one not in the lists above). */
const OTHER = 7;

// The flags byte of a stage: status (bits 0–2), detail kind (bits 3–4), then one bit each.
const DETAIL_NONE = 0;
const DETAIL_COMMON = 1 << 3;
const DETAIL_TEXT = 2 << 3;
/** A detail that is not well-formed UTF-16 (a lone surrogate): its JSON text, which keeps it exactly. */
const DETAIL_JSON = 3 << 3;
const DETAIL_MASK = 3 << 3;
const NAMED = 1 << 5;
const STARTS_AT_PREVIOUS_END = 1 << 6;
const DOUBLES = 1 << 7;
// The flags byte of an attempt: outcome (bits 0–2), then one bit each.
const HAS_TIMEOUT = 1 << 3;
const HAS_EXTRAS = 1 << 4;
const ERROR_IS_CALLS = 1 << 6;
/** With HAS_TIMEOUT: the timeout is written in whole seconds (30,000 ms in one byte, not three). */
const TIMEOUT_IN_SECONDS = 1 << 5;

/** Whether `text` has no lone surrogate, so that UTF-8 keeps it exactly (ES2024; Node 20 has it). */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * `ms` in whole microseconds, or -1 when that would change it. The executor rounds its times to
 * the microsecond (`roundMs`), so its times always fit; any other number is kept as a double.
 */
function micros(ms: number): number {
  const us = Math.round(ms * 1000);
  return us / 1000 === ms && us >= 0 && us <= Number.MAX_SAFE_INTEGER && !Object.is(ms, -0) ? us : -1;
}

/**
 * Encodes stages in bytes: a version byte, then per stage a flags byte (status, detail kind,
 * whether the name is written, whether it starts where the previous one ended, whether its
 * times are doubles) and what the flags say follows: name, start and duration (varints of
 * microseconds, or doubles), status text, detail (a COMMON_DETAILS index or its text). A typical
 * call's six stages take ~20 bytes (their JSON tuples ~100, their JSON objects ~600).
 * @example decodeStages(encodeStages(stages)) // equal to stages
 */
export function encodeStages(stages: readonly TraceStage[], error: ToolErrorData | null = null): Buffer {
  const heads = error === null ? null : errorHeads(error);
  byteWriter.begin();
  byteWriter.byte(BINARY_V1);
  // Where the previous stage ended, in µs; -1 when its times were not whole microseconds.
  let previousEnd = 0;
  for (let index = 0; index < stages.length; index++) {
    const stage = stages[index] as TraceStage;
    const start = micros(stage.startedAt);
    const duration = micros(stage.durationMs);
    const statusCode = stageStatusCode.get(stage.status) ?? OTHER;
    let flags = statusCode;
    let common = stage.detail === null ? undefined : detailIndex.get(stage.detail);
    let rest: string | null = null;
    if (common === undefined && heads !== null && stage.detail !== null) {
      const [head, cut] = heads;
      if (stage.detail.startsWith(head)) [common, rest] = [ERROR_HEAD, stage.detail.slice(head.length)];
      else if (cut !== null && stage.detail.startsWith(cut))
        [common, rest] = [ERROR_HEAD_CUT, stage.detail.slice(cut.length)];
      // The text that follows must keep exactly: written as UTF-8, it must be well formed.
      if (rest !== null && !isWellFormed(rest)) [common, rest] = [undefined, null];
    }
    if (stage.detail === null) flags |= DETAIL_NONE;
    else if (common !== undefined) flags |= DETAIL_COMMON;
    else flags |= isWellFormed(stage.detail) ? DETAIL_TEXT : DETAIL_JSON;
    if (STAGE_NAMES[index] !== stage.name) flags |= NAMED;
    const exact = start >= 0 && duration >= 0;
    if (!exact) flags |= DOUBLES;
    else if (start === previousEnd) flags |= STARTS_AT_PREVIOUS_END;
    byteWriter.byte(flags);
    if (flags & NAMED) byteWriter.text(stage.name);
    if (!exact) {
      byteWriter.double(stage.startedAt);
      byteWriter.double(stage.durationMs);
      previousEnd = -1;
    } else {
      if (start !== previousEnd) byteWriter.varint(start);
      byteWriter.varint(duration);
      previousEnd = start + duration;
    }
    if (statusCode === OTHER) byteWriter.text(stage.status);
    if (common !== undefined) {
      byteWriter.varint(common);
      if (rest !== null) byteWriter.text(rest);
    } else if (stage.detail !== null) {
      byteWriter.text((flags & DETAIL_MASK) === DETAIL_JSON ? JSON.stringify(stage.detail) : stage.detail);
    }
  }
  return byteWriter.end();
}

/**
 * Reads `encodeStages`' bytes (of a call whose error is `error`), or the JSON of older rows
 * (tuples since migration 0010, objects before).
 */
export function decodeStages(stored: StoredBytes, error: ToolErrorData | null = null): TraceStage[] {
  if (typeof stored === 'string') return decodeStagesText(stored);
  const reader = new ByteReader(stored);
  const version = reader.byte();
  if (version !== BINARY_V1) throw new RangeError(`unknown stages format ${version}`);
  const stages: TraceStage[] = [];
  let previousEnd = 0;
  while (!reader.done) {
    const flags = reader.byte();
    const name = flags & NAMED ? reader.text() : STAGE_NAMES[stages.length];
    let startedAt: number;
    let durationMs: number;
    if (flags & DOUBLES) {
      startedAt = reader.double();
      durationMs = reader.double();
      previousEnd = -1;
    } else {
      const start = flags & STARTS_AT_PREVIOUS_END ? previousEnd : reader.varint();
      const duration = reader.varint();
      startedAt = start / 1000;
      durationMs = duration / 1000;
      previousEnd = start + duration;
    }
    const statusCode = flags & 7;
    const status = statusCode === OTHER ? reader.text() : STAGE_STATUSES[statusCode];
    const kind = flags & DETAIL_MASK;
    let detail: string | null = null;
    if (kind === DETAIL_COMMON) {
      const index = reader.varint();
      if (index === ERROR_HEAD || index === ERROR_HEAD_CUT) {
        const heads: [string | null, string | null] = error === null ? [null, null] : errorHeads(error);
        detail = (heads[index - ERROR_HEAD] ?? '') + reader.text();
      } else detail = COMMON_DETAILS[index] ?? null;
    } else if (kind === DETAIL_TEXT) detail = reader.text();
    else if (kind === DETAIL_JSON) detail = JSON.parse(reader.text()) as string;
    stages.push({ name, status, startedAt, durationMs, detail } as TraceStage);
  }
  return stages;
}

function decodeStagesText(text: string): TraceStage[] {
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
  Pick<Attempt, 'number' | 'tool' | 'fallback' | 'error' | 'backoffMs' | 'backoffReason' | 'fault' | 'timeoutMs'>
>;
/** An attempt as a tuple: `[startedAt, durationMs, outcome, timeoutMs (null when absent), extras?]`. */
type AttemptTuple = [number, number, string, number | null] | [number, number, string, number | null, AttemptExtras];

/**
 * Encodes attempts in bytes: a version byte, then per attempt a flags byte (outcome, whether a
 * timeout and extras follow, whether the times are doubles, whether its error is the call's),
 * start and duration (µs varints or doubles), the timeout (a varint of ms, or of seconds when whole), the outcome's text when
 * unusual, and the extras as JSON text: the number, tool, fallback, error, backoff and fault,
 * each only where it differs from the usual (`index + 1`, the call's tool, false, the call's
 * error or null). `callError` is the call's stored `error` column (its JSON), which a failed
 * call's last attempt repeats.
 */
export function encodeAttempts(attempts: readonly Attempt[], tool: string, callError: string | null): Buffer {
  byteWriter.begin();
  byteWriter.byte(BINARY_V1);
  for (let index = 0; index < attempts.length; index++) {
    const attempt = attempts[index] as Attempt;
    const extras: AttemptExtras = {};
    const outcome = outcomeCode.get(attempt.outcome) ?? OTHER;
    let flags = outcome;
    if (attempt.number !== index + 1) extras.number = attempt.number;
    if (attempt.tool !== tool) extras.tool = attempt.tool;
    if (attempt.fallback) extras.fallback = true;
    if (attempt.error !== null) {
      if (callError !== null && JSON.stringify(attempt.error) === callError) flags |= ERROR_IS_CALLS;
      else extras.error = attempt.error;
    }
    if (attempt.backoffMs !== null) extras.backoffMs = attempt.backoffMs;
    if (attempt.backoffReason !== undefined) extras.backoffReason = attempt.backoffReason;
    if (attempt.fault !== null) extras.fault = attempt.fault;
    const timeout = attempt.timeoutMs;
    if (timeout !== undefined) {
      if (Number.isSafeInteger(timeout) && timeout >= 0)
        flags |= timeout % 1000 === 0 ? HAS_TIMEOUT | TIMEOUT_IN_SECONDS : HAS_TIMEOUT;
      else extras.timeoutMs = timeout;
    }
    const hasExtras = Object.keys(extras).length > 0;
    if (hasExtras) flags |= HAS_EXTRAS;
    const start = micros(attempt.startedAt);
    const duration = micros(attempt.durationMs);
    const exact = start >= 0 && duration >= 0;
    if (!exact) flags |= DOUBLES;
    byteWriter.byte(flags);
    if (exact) {
      byteWriter.varint(start);
      byteWriter.varint(duration);
    } else {
      byteWriter.double(attempt.startedAt);
      byteWriter.double(attempt.durationMs);
    }
    if (flags & HAS_TIMEOUT)
      byteWriter.varint(flags & TIMEOUT_IN_SECONDS ? (timeout as number) / 1000 : (timeout as number));
    if (outcome === OTHER) byteWriter.text(attempt.outcome);
    if (hasExtras) byteWriter.text(JSON.stringify(extras));
  }
  return byteWriter.end();
}

/**
 * Reads `encodeAttempts`' bytes (for a call of `tool` whose `error` column is `callError`), or
 * the JSON of older rows (tuples since migration 0010, objects before).
 */
export function decodeAttempts(stored: StoredBytes, tool: string, callError: string | null): Attempt[] {
  if (typeof stored === 'string') return decodeAttemptsText(stored, tool);
  const reader = new ByteReader(stored);
  const version = reader.byte();
  if (version !== BINARY_V1) throw new RangeError(`unknown attempts format ${version}`);
  const attempts: Attempt[] = [];
  while (!reader.done) {
    const flags = reader.byte();
    const doubles = (flags & DOUBLES) !== 0;
    const startedAt = doubles ? reader.double() : reader.varint() / 1000;
    const durationMs = doubles ? reader.double() : reader.varint() / 1000;
    const timeoutMs = flags & HAS_TIMEOUT ? reader.varint() * (flags & TIMEOUT_IN_SECONDS ? 1000 : 1) : undefined;
    const outcome = (flags & 7) === OTHER ? reader.text() : ATTEMPT_OUTCOMES[flags & 7];
    const extras = flags & HAS_EXTRAS ? (JSON.parse(reader.text()) as AttemptExtras) : {};
    const error = flags & ERROR_IS_CALLS && callError !== null ? (JSON.parse(callError) as Attempt['error']) : null;
    attempts.push(
      withOptional(
        {
          number: extras.number ?? attempts.length + 1,
          tool: extras.tool ?? tool,
          fallback: extras.fallback ?? false,
          startedAt,
          durationMs,
          outcome: outcome as Attempt['outcome'],
          error: extras.error ?? error,
          backoffMs: extras.backoffMs ?? null,
          fault: extras.fault ?? null,
        },
        timeoutMs ?? extras.timeoutMs ?? null,
        extras.backoffReason,
      ),
    );
  }
  return attempts;
}

/** The attempt with its optional fields set where present (absent ones stay absent, not undefined). */
function withOptional(attempt: Attempt, timeoutMs: number | null, backoffReason: string | undefined): Attempt {
  if (timeoutMs !== null) attempt.timeoutMs = timeoutMs;
  if (backoffReason !== undefined) attempt.backoffReason = backoffReason;
  return attempt;
}

function decodeAttemptsText(text: string, tool: string): Attempt[] {
  const parsed = JSON.parse(text) as (AttemptTuple | Attempt)[];
  return parsed.map((attempt, index) => {
    if (!Array.isArray(attempt)) return attempt;
    const [startedAt, durationMs, outcome, timeoutMs, extras = {}] = attempt;
    return withOptional(
      {
        number: extras.number ?? index + 1,
        tool: extras.tool ?? tool,
        fallback: extras.fallback ?? false,
        startedAt,
        durationMs,
        outcome: outcome as Attempt['outcome'],
        error: extras.error ?? null,
        backoffMs: extras.backoffMs ?? null,
        fault: extras.fault ?? null,
      },
      timeoutMs,
      extras.backoffReason,
    );
  });
}

/**
 * `model_message` when it is the output's JSON text, as most successful calls' messages are: a
 * lone NUL, which no message written as itself can be (a message starting with NUL is stored
 * with one more in front, see `encodeModelMessage`).
 */
const SAME_AS_OUTPUT = '\u0000';
/**
 * `model_message` when it is `errorMessageV1` of the call's error, as most failed calls'
 * messages are. Older rows never hold it: a message stored as NUL + itself started with NUL.
 */
const SAME_AS_ERROR = '\u0000\u0001';

/**
 * What the executor tells the model of an error (`describeErrorForModel` when this was written),
 * frozen here: a stored SAME_AS_ERROR must read back the same text even if the executor's wording
 * changes later (its messages then no longer match, and are stored as themselves).
 */
function errorMessageV1(error: ToolErrorData): string {
  const lines = [`Error ${error.code}: ${error.message}`];
  lines.push(error.retryable ? 'Retrying this call may succeed.' : 'Retrying the same call will fail the same way.');
  if (error.hint) lines.push(`What to do: ${error.hint}`);
  return lines.join('\n');
}

/** The stored form of a model message, given the stored output text and the call's error. */
export function encodeModelMessage(
  message: string | null,
  output: string | null,
  error: ToolErrorData | null,
): string | null {
  if (message === null) return null;
  if (message === output) return SAME_AS_OUTPUT;
  if (error !== null && message === errorMessageV1(error)) return SAME_AS_ERROR;
  return message.startsWith(SAME_AS_OUTPUT) ? SAME_AS_OUTPUT + message : message;
}

/** Reads `encodeModelMessage`'s form back, given the stored output text and the call's error. */
export function decodeModelMessage(
  stored: string | null,
  output: string | null,
  error: ToolErrorData | null,
): string | null {
  if (stored === null) return null;
  if (stored === SAME_AS_OUTPUT) return output;
  if (stored === SAME_AS_ERROR && error !== null) return errorMessageV1(error);
  return stored.startsWith(SAME_AS_OUTPUT) ? stored.slice(1) : stored;
}
