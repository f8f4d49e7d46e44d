import { rawArgumentsOf } from './parse-arguments';
import type { Redactor } from './redact';
import type { ExecutionContext, ToolCall, TraceRecord } from './types';

/**
 * The record of a call as it starts: running, nothing decided yet. The ids an agent chose (call,
 * session) are stored and shown like any text, so secret shapes and known secrets leave them too.
 */
export function createTraceRecord(
  call: ToolCall,
  ctx: ExecutionContext,
  traceId: string,
  createdAt: number,
  redactor?: Redactor,
): TraceRecord {
  const scrub = (text: string) => (redactor ? redactor.scrubText(text) : text);
  const record: TraceRecord = {
    id: traceId,
    toolCallId: call.id ? scrub(call.id) : `call_${traceId.replace(/-/g, '').slice(0, 24)}`,
    sessionId: ctx.sessionId ? scrub(ctx.sessionId) : null,
    actor: ctx.actor ?? 'api',
    principal: ctx.principal ?? null,
    tool: typeof call.name === 'string' ? call.name : String(call.name),
    status: 'running',
    sideEffect: null,
    arguments: null,
    rawArguments: rawArgumentsOf(call.arguments),
    editedArguments: null,
    rawEditedArguments: null,
    approval: null,
    replayOf: ctx.replayOf ?? null,
    batchId: ctx.batchId ?? null,
    servedFrom: null,
    createdAt,
    finishedAt: null,
    latencyMs: null,
    stages: [],
    attempts: [],
    output: null,
    stdout: null,
    stderr: null,
    exitCode: null,
    error: null,
    modelMessage: null,
    modelTruncation: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    metadata: ctx.metadata ?? {},
  };
  if (ctx.replayOf) record.flags.replayed = true;
  if (ctx.traceContext) record.traceContext = ctx.traceContext;
  return record;
}
