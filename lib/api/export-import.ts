import { z } from 'zod';
import packageJson from '../../package.json';
import {
  ASSISTANT_MODEL_MAX_CHARS,
  ASSISTANT_TEXT_MAX_BYTES,
  type AssistantMessageJson,
  cutUtf8,
} from '../calls/assistant-message';
import type { BatchMessage, StoredTrace, TraceStore } from '../db/trace-store';
import { ApiError } from '../errors';
import { executionMs } from '../executor/approval-wait';
import { boundError, boundText } from '../executor/bound-error';
import type { Redactor } from '../executor/redact';
import { CALL_STATUSES, STAGE_NAMES, type ToolErrorData } from '../executor/types';
import { isSessionTooLargeError, sessionCalls } from '../replay/session-calls';
import type { Toolscope } from '../server/create-toolscope';
import { type TraceJson, traceFromJson } from '../ui/trace-from-json';
import { createPacer, type Pacer } from './json-in-turns';
import { traceJson } from './serialize';

/** What an export file says it is. */
export const EXPORT_FORMAT = 'toolscope-export';
/** The version of the export file this Toolscope writes, and the only one it reads. */
export const EXPORT_VERSION = 1;
/** The largest file `POST /api/v1/import` takes (a 413 beyond). */
export const IMPORT_MAX_BYTES = 32 * 1024 * 1024;
/** How many problems of a refused file are listed in `details.errors`. */
export const IMPORT_MAX_ERRORS = 20;

/** A trace in an export file: `GET /api/v1/traces/:id`'s JSON with the message of its batch. */
export type ExportedTrace = ReturnType<typeof traceJson> & {
  assistant_message: AssistantMessageJson | null;
  replays: string[];
};

/** The file `GET /api/v1/traces/:id/export` and `GET /api/v1/sessions/:id/export` send. */
export interface ExportFile {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  toolscope_version: string;
  kind: 'trace' | 'session';
  session_id: string | null;
  traces: ExportedTrace[];
}

/** The traces as exported: redacted JSON (never the sealed arguments), each with its batch's message. */
function exportedTraces(traces: StoredTrace[], store: TraceStore): ExportedTrace[] {
  const batchIds = traces.flatMap((trace) => (trace.batchId === null ? [] : [trace.batchId]));
  const messages = batchIds.length === 0 ? new Map() : store.assistantMessages(batchIds);
  return traces.map((trace) => ({
    ...traceJson(trace),
    assistant_message: (trace.batchId === null ? null : messages.get(trace.batchId)) ?? null,
    replays: store.replays(trace.id),
  }));
}

function exportFile(
  kind: ExportFile['kind'],
  sessionId: string | null,
  traces: ExportedTrace[],
  now: number,
): ExportFile {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date(now).toISOString(),
    toolscope_version: packageJson.version,
    kind,
    session_id: sessionId,
    traces,
  };
}

/**
 * The export file of one trace (`kind: "trace"`), for a bug report; `POST /api/v1/import` reads
 * it. A call still running is exported as stored. 404 unknown.
 */
export function traceExport(id: string, ts: Pick<Toolscope, 'store'>, now = Date.now()): ExportFile {
  const trace = id.length <= 256 ? ts.store.get(id) : null;
  if (!trace) throw new ApiError('NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);
  return exportFile('trace', trace.sessionId, exportedTraces([trace], ts.store), now);
}

/**
 * The export file of a session: every call, in the order they began (`kind: "session"`). 404
 * when the session has no calls; 400 past MAX_SESSION_CALLS.
 */
export function sessionExport(sessionId: string, ts: Pick<Toolscope, 'store'>, now = Date.now()): ExportFile {
  const notFound = () => new ApiError('NOT_FOUND', `No calls in session "${sessionId.slice(0, 256)}".`);
  if (sessionId.length > 256) throw notFound();
  let summaries: ReturnType<typeof sessionCalls>;
  try {
    summaries = sessionCalls(ts.store, sessionId);
  } catch (error) {
    if (isSessionTooLargeError(error)) throw new ApiError('SESSION_TOO_LARGE', `${error.message}.`);
    throw error;
  }
  // A call deleted between the list and its read is left out.
  const traces = summaries.flatMap((summary) => ts.store.get(summary.id) ?? []);
  if (traces.length === 0) throw notFound();
  return exportFile('session', sessionId, exportedTraces(traces, ts.store), now);
}

// ---------------------------------------------------------------------------------------------
// Import

const id = z.string().min(1).max(256);
// Not before 1970: a stored time is epoch milliseconds, and a negative one would not read back
// (a finish time is stored as the milliseconds after the start, negated: see coded-columns.ts).
const isoTime = z.iso
  .datetime({ offset: true })
  .refine((time) => Date.parse(time) >= 0, { message: 'a time before 1970-01-01T00:00:00Z' });
const nonNegative = z.number().finite().min(0);

/** An imported error is bounded as a recorded one is (see `bound-error.ts`): a file may hold megabytes of one. */
const errorSchema = z
  .object({
    code: z.string().max(256),
    message: z.string(),
    retryable: z.boolean(),
    kind: z.string().max(64),
    hint: z.string().optional(),
    stage: z.enum(STAGE_NAMES).optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .transform((error) => boundError(error as ToolErrorData) as typeof error);

const stageSchema = z.object({
  name: z.enum(STAGE_NAMES),
  status: z.enum(['ok', 'failed', 'skipped', 'waiting', 'running']),
  started_at: nonNegative,
  duration_ms: nonNegative,
  detail: z.string().transform(boundText).nullable(),
});

const attemptSchema = z.object({
  number: z.number().int().min(1),
  tool: z.string().max(256),
  fallback: z.boolean(),
  started_at: nonNegative,
  duration_ms: nonNegative,
  outcome: z.enum(['ok', 'error', 'timeout', 'cancelled', 'running']),
  timeout_ms: nonNegative.nullable(),
  error: errorSchema.nullable(),
  backoff_ms: nonNegative.nullable(),
  backoff_reason: z.string().nullable(),
  fault: z.looseObject({ rule_id: z.string().nullable(), kind: z.string() }).nullable(),
});

const approvalSchema = z.object({
  rule: z.string(),
  requested_at: isoTime,
  expires_at: isoTime.nullable(),
  decision: z.enum(['approved', 'denied', 'expired', 'cancelled']).nullable(),
  by: z.string().nullable(),
  decided_at: isoTime.nullable(),
  reason: z.string().nullable(),
  rule_created: z.string().nullable(),
});

const assistantMessageSchema = z.object({
  text: z.string().nullable(),
  model: z.string().max(ASSISTANT_MODEL_MAX_CHARS).nullable(),
  truncated: z.boolean(),
});

/** A trace as `GET /api/v1/traces/:id` gives it (fields this version does not know are dropped). */
const traceSchema = z.object({
  id,
  tool_call_id: z.string().max(256),
  session_id: id.nullable(),
  actor: z.string().max(256),
  tool: z.string().max(256),
  side_effect: z.enum(['none', 'read', 'write', 'exec']).nullable(),
  status: z.enum(CALL_STATUSES),
  arguments: z.unknown(),
  edited_arguments: z.unknown(),
  approval: approvalSchema.nullable(),
  replay_of: z.string().max(256).nullable(),
  batch_id: z.string().max(256).nullable(),
  session_seq: z.number().int().min(1).nullable(),
  served_from: z.string().max(256).nullable(),
  result: z.object({
    success: z.boolean(),
    output: z.unknown(),
    error: errorSchema.nullable(),
    latency_ms: nonNegative.nullable(),
  }),
  /** Absent from files exported before latency meant execution only: their latency holds the wait. */
  approval_wait_ms: nonNegative.nullable().optional(),
  stages: z.array(stageSchema).max(64),
  attempts: z.array(attemptSchema).max(1000),
  stdout: z.string().nullable(),
  stderr: z.string().nullable(),
  exit_code: z.number().int().nullable(),
  model_message: z.string().nullable(),
  model_truncation: z.object({ head_chars: nonNegative, tail_chars: nonNegative, total_chars: nonNegative }).nullable(),
  flags: z.object({
    retried: z.boolean(),
    fell_back: z.boolean(),
    truncated: z.boolean(),
    faulted: z.boolean(),
    replayed: z.boolean(),
  }),
  metadata: z.record(z.string(), z.unknown()),
  created_at: isoTime,
  finished_at: isoTime.nullable(),
  assistant_message: assistantMessageSchema.nullable().optional(),
});

/** The most traces a file may hold. */
export const IMPORT_MAX_TRACES = 100_000;

/**
 * The file but its traces, version 1: `format` and `version` are checked first, on their own;
 * each trace is checked apart (`traceSchema`), a turn of the event loop taking a few of them.
 */
const fileHeadSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exported_at: isoTime,
  toolscope_version: z.string().max(64),
  kind: z.enum(['trace', 'session']),
  session_id: id.nullable(),
  traces: z.array(z.unknown()).min(1).max(IMPORT_MAX_TRACES),
});

type FileHead = z.infer<typeof fileHeadSchema>;
type TraceFields = z.infer<typeof traceSchema>;

/** One problem of a refused file: where, and what. */
export interface ImportProblem {
  path: string;
  message: string;
}

/** What `POST /api/v1/import` answers with 201. */
export interface ImportAnswer {
  kind: 'trace' | 'session';
  /** The session the calls are in here: the file's, or its own when the file's was taken (`renamed_from`). */
  session_id: string | null;
  /** The file's session id when a session here already had it; null otherwise. */
  renamed_from: string | null;
  trace_ids: string[];
  imported: number;
}

/** Why a file cannot be imported: the status, code and message of the refusal. */
export interface ImportRefusal {
  status: 400 | 409;
  code: 'INVALID_IMPORT' | 'UNSUPPORTED_VERSION' | 'ALREADY_EXISTS';
  message: string;
  details?: Record<string, unknown>;
}

/** The refusal of a malformed file: its first problem named, the first IMPORT_MAX_ERRORS listed, `total` counted. */
const invalid = (problems: ImportProblem[], total = problems.length): ImportRefusal => {
  const first = problems[0] as ImportProblem;
  const more = total > 1 ? ` (and ${total - 1} more problem${total > 2 ? 's' : ''})` : '';
  return {
    status: 400,
    code: 'INVALID_IMPORT',
    message: `Not a valid Toolscope export: ${first.path}: ${first.message}${more}.`,
    details: { errors: problems.slice(0, IMPORT_MAX_ERRORS) },
  };
};

/** The problems of a file as zod words them, keeping the first IMPORT_MAX_ERRORS and counting all. */
class Problems {
  readonly listed: ImportProblem[] = [];
  total = 0;

  add(path: readonly PropertyKey[], message: string): void {
    this.total++;
    if (this.listed.length < IMPORT_MAX_ERRORS) this.listed.push({ path: path.join('.') || 'body', message });
  }

  addIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): void {
    for (const issue of error.issues) this.add([...prefix, ...issue.path], issue.message);
  }
}

/**
 * An imported trace redacted as a recorded one is, with the server's redactor (its
 * `redact.keys`, and the secrets it knows: its environment's, its MCP servers'): a file
 * exported by Toolscope already is, but one edited by hand, or exported by a Toolscope that
 * knew other secrets, may hold some, and nothing stored may (arguments by key and shape, their
 * values scrubbed from everything else of the trace: output, stdout, stderr, errors…).
 */
function redactImported(trace: StoredTrace, redactor: Redactor): { trace: StoredTrace; secrets: string[] } {
  const args = redactor.redact(trace.arguments);
  const edited = redactor.redact(trace.editedArguments);
  const secrets = args.secrets.concat(edited.secrets);
  const rest = redactor.scrubValue({ ...trace, arguments: null, editedArguments: null }, secrets);
  return { trace: { ...rest, arguments: args.value, editedArguments: edited.value }, secrets };
}

/** The file read and checked: its traces and messages as they will be stored (redacted). */
export type ReadFile =
  | { ok: true; file: FileHead; traces: StoredTrace[]; messages: BatchMessage[] }
  | { ok: false; refusal: ImportRefusal };

/**
 * Checks a parsed file and turns it into what the store imports, or says why not: another
 * format, another version (newer or older, named so), or the first bad path of a malformed one.
 * Each trace is checked and redacted apart, yielding to the event loop (`pacer`) between them.
 */
export async function readExportFile(
  body: unknown,
  redactor: Redactor,
  pacer: Pacer = createPacer(),
): Promise<ReadFile> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const got = Array.isArray(body) ? 'an array' : body === null ? 'null' : typeof body;
    return {
      ok: false,
      refusal: invalid([
        {
          path: 'body',
          message: `expected a Toolscope export file (a JSON object with "format": "${EXPORT_FORMAT}"), got ${got}`,
        },
      ]),
    };
  }
  const head = body as { format?: unknown; version?: unknown; traces?: unknown };
  if (head.format !== EXPORT_FORMAT) {
    const got = head.format === undefined ? 'missing' : JSON.stringify(head.format).slice(0, 64);
    return {
      ok: false,
      refusal: invalid([
        { path: 'format', message: `expected "${EXPORT_FORMAT}", got ${got}; this is not a Toolscope export file` },
      ]),
    };
  }
  if (typeof head.version !== 'number' || !Number.isInteger(head.version)) {
    const got = head.version === undefined ? 'missing' : JSON.stringify(head.version).slice(0, 64);
    return { ok: false, refusal: invalid([{ path: 'version', message: `expected an integer, got ${got}` }]) };
  }
  if (head.version !== EXPORT_VERSION) {
    const age = head.version > EXPORT_VERSION ? 'a newer' : 'an older';
    return {
      ok: false,
      refusal: {
        status: 400,
        code: 'UNSUPPORTED_VERSION',
        message: `This file was exported by ${age} Toolscope (format version ${head.version}); this one reads version ${EXPORT_VERSION}.`,
        details: { version: head.version, supported: [EXPORT_VERSION] },
      },
    };
  }
  const problems = new Problems();
  const parsedHead = fileHeadSchema.safeParse(body);
  if (!parsedHead.success) problems.addIssues(parsedHead.error);
  const items = Array.isArray(head.traces) && head.traces.length <= IMPORT_MAX_TRACES ? head.traces : [];
  const checked: TraceFields[] = [];
  for (const [index, item] of items.entries()) {
    const trace = traceSchema.safeParse(item);
    if (trace.success) checked.push(trace.data);
    else problems.addIssues(trace.error, ['traces', index]);
    await pacer.pace();
  }
  if (problems.total === 0 && parsedHead.success) checkWhole(parsedHead.data, checked, problems);
  if (problems.total > 0 || !parsedHead.success)
    return { ok: false, refusal: invalid(problems.listed, problems.total) };
  const traces: StoredTrace[] = [];
  const messages = new Map<string, BatchMessage>();
  for (const json of checked) {
    const read = traceFromJson({ ...json, imported: true } as unknown as TraceJson) as StoredTrace;
    // A file from before latency meant execution: its latency runs from arrival to answer.
    if (json.approval_wait_ms === undefined && read.latencyMs !== null) {
      read.latencyMs = executionMs(read.latencyMs, read.approval, read.stages);
    }
    const redacted = redactImported(read, redactor);
    const trace = redacted.trace;
    traces.push({ ...trace, sessionSeq: json.session_seq, imported: true });
    const message = json.assistant_message;
    if (message && json.batch_id !== null && !messages.has(json.batch_id)) {
      // Redacted and bounded as when it was received (redacted first: a cut leaves no half secret).
      const text =
        message.text === null
          ? null
          : cutUtf8(redactor.scrubText(message.text, redacted.secrets), ASSISTANT_TEXT_MAX_BYTES);
      messages.set(json.batch_id, {
        batchId: json.batch_id,
        sessionId: json.session_id,
        createdAt: trace.createdAt,
        message: {
          text: text?.text ?? null,
          model: message.model === null ? null : redactor.scrubText(message.model),
          truncated: message.truncated || (text?.cut ?? false),
        },
      });
    }
    await pacer.pace();
  }
  return { ok: true, file: parsedHead.data, traces, messages: [...messages.values()] };
}

/** What holds across the traces of a valid file: a trace export holds one; ids once each; a session's traces in it. */
function checkWhole(file: FileHead, traces: readonly TraceFields[], problems: Problems): void {
  if (file.kind === 'trace' && traces.length !== 1) {
    problems.add(['traces'], `a trace export holds one trace, not ${traces.length}`);
  }
  const seen = new Set<string>();
  traces.forEach((trace, index) => {
    if (seen.has(trace.id)) problems.add(['traces', index, 'id'], `"${trace.id}" appears twice`);
    seen.add(trace.id);
    if (file.kind === 'session' && trace.session_id !== file.session_id) {
      problems.add(
        ['traces', index, 'session_id'],
        `expected the file's session "${file.session_id}", got ${JSON.stringify(trace.session_id)}`,
      );
    }
  });
}
