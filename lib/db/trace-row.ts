import type { ApprovalRecord, CallPrincipal, ModelTruncation, ToolErrorData, TraceRecord } from '../executor/types';
import {
  decodeAttempts,
  decodeModelMessage,
  decodeStages,
  encodeAttempts,
  encodeModelMessage,
  encodeStages,
} from './compact-columns';
import { fromJson, toJson } from './json-column';
import type { ToolCallRow } from './schema';
import { decodeTraceId, encodeTraceId } from './trace-id';
import type { StoredTrace, TraceSummary } from './trace-store';

/**
 * Every column of a row except the ones the store owns: `seq` (SQLite) and the sealed arguments
 * (vault). `sessionSeq` is the store's too, but travels with the values: the store assigns it.
 */
export type TraceRowValues = Omit<
  ToolCallRow,
  'seq' | 'sealedArguments' | 'sealedEditedArguments' | 'imported' | StoredOnlyKey
>;
/** The stored forms of the coded columns (see `coded-columns.ts`): SQL writes them from the values. */
type StoredOnlyKey =
  | 'toolCallIdStored'
  | 'actorStored'
  | 'toolStored'
  | 'statusStored'
  | 'sideEffectStored'
  | 'latencyStored'
  | 'finishedStored';

/** A row as read back: the values, and whether the call was imported (a column the executor never writes). */
export type StoredTraceRow = TraceRowValues & { imported?: 0 | 1 };

/** The columns the traces list reads. */
export type TraceSummaryRow = Pick<
  ToolCallRow,
  | 'id'
  | 'toolCallId'
  | 'sessionId'
  | 'actor'
  | 'tool'
  | 'status'
  | 'createdAt'
  | 'finishedAt'
  | 'latencyMs'
  | 'attemptCount'
  | 'errorCode'
  | 'retried'
  | 'fellBack'
  | 'truncated'
  | 'faulted'
  | 'replayed'
  | 'sessionSeq'
  | 'servedFrom'
  | 'imported'
  | 'principalRef'
> & {
  argumentsPreview: string | null;
  /** The approval's JSON, when the reader loads it (see `TraceSummary.approval`). */
  approval?: string | null;
};

const bit = (value: boolean): 0 | 1 => (value ? 1 : 0);

/**
 * Flattens a trace record into column values: the id in its stored form (see `trace-id.ts`), JSON fields as text (stages and attempts as bytes,
 * and a model message that repeats the output or the error, in the compact forms of
 * `compact-columns.ts`; no metadata as the empty text), flags as 0/1,
 * the error code copied out for the list. `rawArguments` is left out on purpose — only the vault may see it.
 * `sessionSeq` is the call's place in its session, which the store assigned.
 * Both stores keep exactly this form, so they round-trip records identically.
 */
export function encodeTraceRecord(
  record: TraceRecord,
  sessionSeq: number | null,
  principalRef: number | null = null,
): TraceRowValues {
  const output = toJson(record.output);
  const error = record.error === null ? null : toJson(record.error);
  const metadata = toJson(record.metadata);
  return {
    id: encodeTraceId(record.id),
    toolCallId: record.toolCallId,
    sessionId: record.sessionId,
    actor: record.actor,
    tool: record.tool,
    status: record.status,
    sideEffect: record.sideEffect,
    arguments: toJson(record.arguments),
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
    latencyMs: record.latencyMs,
    stages: encodeStages(record.stages, record.error),
    attempts: encodeAttempts(record.attempts, record.tool, error),
    attemptCount: record.attempts.length,
    output,
    stdout: record.stdout,
    stderr: record.stderr,
    exitCode: record.exitCode,
    error,
    errorCode: record.error?.code ?? null,
    modelMessage: encodeModelMessage(record.modelMessage, output, record.error),
    modelTruncation: record.modelTruncation === null ? null : toJson(record.modelTruncation),
    retried: bit(record.flags.retried),
    fellBack: bit(record.flags.fellBack),
    truncated: bit(record.flags.truncated),
    faulted: bit(record.flags.faulted),
    replayed: bit(record.flags.replayed),
    // No metadata (most calls) is the empty text: two bytes less than `{}`, which older rows hold.
    metadata: metadata === null || metadata === '{}' ? '' : metadata,
    editedArguments: record.rawEditedArguments === null ? null : toJson(record.editedArguments),
    approval: record.approval === null ? null : toJson(record.approval),
    replayOf: record.replayOf,
    batchId: record.batchId,
    sessionSeq,
    servedFrom: record.servedFrom,
    principalRef,
  };
}

/** The principal of a `principal_ref`, as the store's directory knows it (see `principal-directory.ts`). */
export type PrincipalOf = (ref: number) => CallPrincipal | null;

const noPrincipals: PrincipalOf = () => null;

/** Rebuilds the trace record from its columns and the unsealed raw arguments. */
export function decodeStoredTrace(row: StoredTraceRow, principalOf: PrincipalOf = noPrincipals): StoredTrace {
  const error = (fromJson(row.error) ?? null) as ToolErrorData | null;
  return {
    ...(row.imported === 1 ? { imported: true } : {}),
    id: decodeTraceId(row.id),
    toolCallId: row.toolCallId,
    sessionId: row.sessionId,
    actor: row.actor,
    principal: row.principalRef === null || row.principalRef === undefined ? null : principalOf(row.principalRef),
    tool: row.tool,
    status: row.status,
    sideEffect: row.sideEffect,
    arguments: fromJson(row.arguments),
    editedArguments: row.editedArguments === null ? null : fromJson(row.editedArguments),
    approval: (fromJson(row.approval) ?? null) as ApprovalRecord | null,
    replayOf: row.replayOf,
    batchId: row.batchId,
    sessionSeq: row.sessionSeq,
    servedFrom: row.servedFrom,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    latencyMs: row.latencyMs,
    stages: decodeStages(row.stages, error),
    attempts: decodeAttempts(row.attempts, row.tool, row.error),
    output: fromJson(row.output),
    stdout: row.stdout,
    stderr: row.stderr,
    exitCode: row.exitCode,
    error,
    modelMessage: decodeModelMessage(row.modelMessage, row.output, error),
    modelTruncation: (fromJson(row.modelTruncation) ?? null) as ModelTruncation | null,
    flags: decodeFlags(row),
    metadata: row.metadata === '' ? {} : (fromJson(row.metadata) as Record<string, unknown>),
  };
}

/** The list's view of a row. */
export function decodeTraceSummary(row: TraceSummaryRow, principalOf: PrincipalOf = noPrincipals): TraceSummary {
  return {
    id: decodeTraceId(row.id),
    toolCallId: row.toolCallId,
    sessionId: row.sessionId,
    actor: row.actor,
    principal: row.principalRef === null || row.principalRef === undefined ? null : principalOf(row.principalRef),
    tool: row.tool,
    status: row.status,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    latencyMs: row.latencyMs,
    ...(row.approval === undefined ? {} : { approval: approvalTimesOf(row.approval) }),
    attemptCount: row.attemptCount,
    errorCode: row.errorCode,
    flags: decodeFlags(row),
    argumentsPreview: row.argumentsPreview,
    sessionSeq: row.sessionSeq,
    servedFrom: row.servedFrom,
    imported: row.imported === 1,
  };
}

/** The two times of a stored approval (JSON `ApprovalRecord`) that bound its wait; null for none. */
function approvalTimesOf(json: string | null): TraceSummary['approval'] {
  if (json === null) return null;
  const { requestedAt, decidedAt } = JSON.parse(json) as ApprovalRecord;
  return { requestedAt, decidedAt };
}

function decodeFlags(row: Pick<ToolCallRow, 'retried' | 'fellBack' | 'truncated' | 'faulted' | 'replayed'>) {
  return {
    retried: row.retried === 1,
    fellBack: row.fellBack === 1,
    truncated: row.truncated === 1,
    faulted: row.faulted === 1,
    replayed: row.replayed === 1,
  };
}
