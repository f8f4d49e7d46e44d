import { v7 as uuidv7 } from 'uuid';
import { cancelledError, cancelReasonOf } from './call-cancellation';
import type { CircuitState } from './circuit-breaker';
import type { CircuitSnapshot } from './circuit-breakers';
import { type Clock, systemClock } from './clock';
import { errorData, isToolError } from './errors';
import { type BatchOptions, executeBatch } from './execute-batch';
import { createExecuteStage } from './execute-stage';
import { describeAttempts } from './fault-injection';
import { IdTable } from './id-table';
import { endWithDefect } from './internal-error';
import { LiveCall } from './live-call';
import { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from './normalize';
import { runNormalizeStage } from './normalize-stage';
import { parseArguments, withReceived } from './parse-arguments';
import { runPermissionStage } from './permission-stage';
import { type Approver, createDenyingApprover, defaultPolicy, type FaultSource, type PolicyResolver } from './ports';
import { serveFromRecording } from './recording';
import { createRedactor, type Redactor } from './redact';
import type { Registry } from './registry';
import { createStageRecorder, joinDetail } from './stage-recorder';
import { createTraceRecord } from './trace-record';
import { createTraceStage } from './trace-stage';
import type {
  CancelReason,
  ExecutionContext,
  ToolCall,
  ToolErrorData,
  ToolResult,
  TraceRecord,
  TraceSink,
} from './types';
import { runValidateStage } from './validate-stage';

export type { BatchOptions } from './execute-batch';

/** How long a call waits for approval unless configured otherwise. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

export interface ExecutorOptions {
  registry: Registry;
  sink: TraceSink;
  /** Decides `ask` calls; by default they are denied with "approval required". */
  approver?: Approver;
  /** How long an `ask` call waits for its decision before APPROVAL_TIMEOUT (default 10 minutes); null: for ever. */
  approvalTimeoutMs?: number | null;
  /** Per-call policy; by default `none`/`read` allow and `write`/`exec` ask. */
  policy?: PolicyResolver;
  /** The config file in use (named in denials so a person knows what to edit); null when none. */
  configFile?: string | null;
  clock?: Clock;
  /** [0, 1) source for backoff jitter. */
  random?: () => number;
  faults?: FaultSource;
  redactor?: Redactor;
  limits?: Partial<OutputLimits>;
  /** Trace ids; by default UUIDv7 (time-ordered, so the id index grows at its end). */
  newId?: () => string;
}

export interface Executor {
  execute(call: ToolCall, ctx?: ExecutionContext): Promise<ToolResult>;
  executeBatch(calls: readonly ToolCall[], options?: BatchOptions, ctx?: ExecutionContext): Promise<ToolResult[]>;
  /**
   * Cancels a call in flight (running, waiting to retry or awaiting approval): its tool's signal
   * fires, and the promise resolves with its final, recorded result (status `cancelled`).
   * Null when no call with that trace id is in flight.
   */
  cancel(traceId: string, reason: CancelReason): Promise<ToolResult> | null;
  /**
   * Cancels every call in flight (shutdown); resolves once all of them are recorded. With
   * `keepAwaitingApproval`, calls waiting for a person are left pending instead (their callers
   * released), for the next process to take up.
   */
  cancelAll(reason: CancelReason, options?: { keepAwaitingApproval?: boolean }): Promise<ToolResult[]>;
  /**
   * Resolves with the result of a call in flight once it is recorded, without touching it (a
   * second request for the same tool call waits on it). Null when no call with that trace id is
   * in flight.
   */
  whenFinished(traceId: string): Promise<ToolResult> | null;
  /** A scrubbed snapshot of a call in flight: running stage and attempt, live stdout and stderr. */
  inFlight(traceId: string): TraceRecord | null;
  /** Trace ids of the calls in flight. */
  inFlightIds(): string[];
  /**
   * The caller of a call in flight stops waiting for it (answered that it awaits approval): its
   * signal no longer cancels it. False when no such call is in flight.
   */
  release(traceId: string): boolean;
  /** The worst state of the tool's breakers (open, half-open, closed). */
  circuitState(tool: string): CircuitState;
  /** The tool's breakers that are not closed: key (a host, or null), since when, until when, and the failures that tripped them. */
  circuits(tool: string): CircuitSnapshot[];
  /** Closes the tool's breakers (only `key`'s when given); returns the keys of those that were not closed. */
  resetCircuits(tool: string, key?: string | null): (string | null)[];
  readonly registry: Registry;
}

/**
 * Creates the executor: the one pipeline every tool call goes through, whatever its source.
 * Its ports (sink, approver, clock, faults, policy) are all injected.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const { registry, sink } = options;
  const configFile = options.configFile ?? null;
  const approver = options.approver ?? createDenyingApprover(configFile);
  const policyOf = options.policy ?? defaultPolicy;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const redactor = options.redactor ?? createRedactor();
  const limits = { ...DEFAULT_OUTPUT_LIMITS, ...options.limits };
  // Time-ordered ids (UUIDv7): a new trace lands at the end of the id index, not on a random
  // page of it, so a commit of N calls writes a few index pages instead of N (a third of the WAL).
  const newId = options.newId ?? uuidv7;
  const executeStage = createExecuteStage({ registry, clock, random, faults: options.faults, policyOf });
  const approvalTimeoutMs =
    options.approvalTimeoutMs === undefined ? DEFAULT_APPROVAL_TIMEOUT_MS : options.approvalTimeoutMs;
  const permissionDeps = { approver, policyOf, redactor, sink, clock, configFile, approvalTimeoutMs };
  const calls = new IdTable<LiveCall>();
  const finish = createTraceStage({ sink, redactor, calls });
  const validateDeps = { registry, redactor };
  const normalizeDeps = { redactor, limits };

  /**
   * Runs one tool call through the pipeline; never throws for anything a tool or model causes.
   * 1. parse     — arguments from a JSON string or an object
   * 2. validate  — the tool exists and the arguments match its schema
   *    (recording mode: a recorded call's outcome instead of 3–5, see `recording.ts`)
   * 3. permission — the tool's own check, then allow / ask (through the approver) / deny
   * 4. execute   — attempts under timeouts, retries with backoff, fallbacks, circuit breaker
   * 5. normalize — one result shape, secrets scrubbed, output checked and truncated
   * 6. trace     — the record is finalized, whatever happened
   * While it runs, the call is in flight: `inFlight` shows it, `cancel` stops it.
   */
  async function execute(call: ToolCall, ctx: ExecutionContext = {}): Promise<ToolResult> {
    const t0 = clock.now();
    const traceId = ctx.traceId ?? newId();
    const record = createTraceRecord(call, ctx, traceId, ctx.resume?.createdAt ?? clock.epochMs(), redactor);
    if (ctx.resume) {
      // Pending from the first write on: a crash now must leave it pending, not interrupted.
      record.status = 'awaiting_approval';
      record.approval = { ...ctx.resume.approval, decision: null };
    }
    const live = new LiveCall(record, redactor, limits.maxTraceBytes, clock, sink);
    if (ctx.onAwaitingApproval) live.onAwaitingApproval = ctx.onAwaitingApproval;
    if (ctx.fault) live.fault = ctx.fault;
    const stages = createStageRecorder(clock, t0, live);
    record.stages = stages.list;
    calls.set(traceId, live);
    try {
      const signal = ctx.signal;
      if (signal) {
        if (signal.aborted) {
          const early = parseArguments(call.arguments);
          const redacted = early.ok ? redactor.redact(early.value) : redactor.redactText(record.rawArguments);
          record.arguments = redacted.value;
          live.secrets = redacted.secrets;
          // Cancelled before any stage ran: every stage is skipped, so the error names none.
          return finish(live, stages, t0, cancelledError(cancelReasonOf(signal.reason)));
        }
        live.link(signal, ctx.signalIsDisconnect === true);
      }
      // 1. parse
      const parsed = parseArguments(call.arguments);
      if (!parsed.ok) {
        // Text that does not parse is redacted by a tolerant scan: its secret keys' values too.
        const redacted = redactor.redactText(record.rawArguments);
        record.arguments = redacted.value;
        live.secrets = redacted.secrets;
        const error = withReceived(parsed.error, redacted.value);
        stages.add('parse', t0, 'failed', error.message);
        return finish(live, stages, t0, error);
      }
      stages.add('parse', t0, 'ok', typeof call.arguments === 'string' ? 'JSON string' : 'object');

      // 2. validate
      // A call recording mode may serve needs no running tool: an MCP server may be down.
      const valid = runValidateStage(validateDeps, {
        args: parsed.value,
        live,
        stages,
        checkAvailability: !ctx.recording,
      });
      if (!valid.ok) return finish(live, stages, t0, valid.error);
      const { tool, sideEffect } = valid;

      // Recording mode: a recorded result instead of running anything (see recording.ts).
      if (ctx.recording) {
        const served = serveFromRecording(ctx.recording, { live, stages, t0 }, finish);
        if (served) return served;
      }

      // The record is durable before anything with a side effect can run.
      try {
        const pending = sink.begin(record);
        if (pending) {
          await pending;
          stages.touch();
        }
        live.begun = true;
        live.published();
      } catch (cause) {
        // A sink that refuses the call says why with a ToolError (the vault cannot seal its arguments).
        const error = isToolError(cause)
          ? cause.toData('permission')
          : errorData('TRACE_UNAVAILABLE', 'Toolscope could not record the call, so it was not run.', {
              details: { cause: String(cause) },
              stage: 'permission',
            });
        // The error names the permission stage, so the trace shows it failed there (not skipped).
        stages.add('permission', stages.touch(), 'failed', error.message);
        return finish(live, stages, t0, error);
      }
      if (live.cancelReason) {
        const error = cancelledError(live.cancelReason, 'permission');
        stages.add('permission', stages.lastAt, 'failed', error.message);
        return finish(live, stages, t0, error);
      }

      // 3. permission
      let permission = runPermissionStage(permissionDeps, { tool, input: valid.input, sideEffect, live, stages });
      if (permission instanceof Promise) permission = await permission;
      if (!permission.ok) return finish(live, stages, t0, permission.error);

      // 4. execute
      stages.begin('execute');
      let outcome = executeStage.run({ tool, input: permission.input, live, t0 });
      if (outcome instanceof Promise) outcome = await outcome;
      const attemptsNote = describeAttempts(record.attempts, record.flags.faulted);
      if (!outcome.ok) {
        const { error } = outcome;
        stages.end('failed', joinDetail([`${error.code}: ${error.message}`, attemptsNote, ...outcome.notes]));
        if (outcome.value === undefined) return finish(live, stages, t0, error);
        // 5. normalize — a failed process's stdout, stderr and exit code are kept for the trace.
        const kept = runNormalizeStage(normalizeDeps, {
          tool: outcome.tool,
          value: outcome.value,
          live,
          stages,
          failedAttempt: true,
        });
        return finish(live, stages, t0, error, kept);
      }
      stages.end('ok', outcome.notes.length === 0 ? attemptsNote : joinDetail([attemptsNote, ...outcome.notes]));

      // 5. normalize
      const normalized = runNormalizeStage(normalizeDeps, {
        tool: outcome.tool,
        value: outcome.value,
        live,
        stages,
        failedAttempt: false,
      });

      // 6. trace
      return finish(live, stages, t0, normalized.error ?? undefined, normalized, outcome.fellBackTo);
    } catch (cause) {
      // A defect, not an outcome: the call ends failed INTERNAL_ERROR, recorded, out of flight.
      console.error(`[toolscope] call ${traceId} failed inside the pipeline:`, cause);
      const error = endWithDefect(live, stages, t0, cause);
      try {
        return await finish(live, stages, t0, error);
      } catch (again) {
        return finishBare(live, error, again);
      }
    }
  }

  /**
   * Ends a call whose trace stage itself threw: out of flight, recorded as failed as it stands
   * (best effort), and its waiters answered; nothing is left `running`.
   */
  async function finishBare(live: LiveCall, error: ToolErrorData, cause: unknown): Promise<ToolResult> {
    console.error(`[toolscope] call ${live.record.id} could not be finished normally:`, cause);
    const record = live.record;
    if (calls.get(record.id) === live) calls.delete(record.id);
    live.end();
    record.status = 'failed';
    record.error = error;
    record.finishedAt ??= clock.epochMs();
    try {
      await sink.finish(record);
    } catch (failed) {
      console.error(`[toolscope] could not record trace ${record.id}:`, failed);
    }
    const result: ToolResult = {
      toolCallId: record.toolCallId,
      traceId: record.id,
      tool: record.tool,
      status: 'failed',
      success: false,
      error,
      latencyMs: Math.max(0, record.finishedAt - record.createdAt),
      metadata: {
        traceId: record.id,
        attempts: record.attempts.length,
        stderr: null,
        exitCode: null,
        truncated: false,
        parseFailed: false,
        fellBackTo: null,
        faulted: record.flags.faulted,
      },
    };
    live.settle(result);
    return result;
  }

  function cancel(traceId: string, reason: CancelReason): Promise<ToolResult> | null {
    const live = calls.get(traceId);
    if (!live) return null;
    const result = live.result();
    live.cancel(reason);
    return result;
  }

  return {
    execute,
    executeBatch: (batchCalls, batch, ctx) => executeBatch(execute, batchCalls, batch, ctx),
    cancel,
    cancelAll(reason, cancelOptions = {}) {
      const cancelling: Promise<ToolResult>[] = [];
      for (const id of calls.keys()) {
        const live = calls.get(id);
        if (!live) continue;
        if (cancelOptions.keepAwaitingApproval && live.record.status === 'awaiting_approval') {
          live.release();
          continue;
        }
        const result = cancel(id, reason);
        if (result) cancelling.push(result);
      }
      return Promise.all(cancelling);
    },
    whenFinished: (traceId) => calls.get(traceId)?.result() ?? null,
    inFlight: (traceId) => calls.get(traceId)?.snapshot() ?? null,
    inFlightIds: () => calls.keys(),
    release(traceId) {
      const live = calls.get(traceId);
      live?.release();
      return live !== undefined;
    },
    circuitState: (tool) => executeStage.circuits.state(tool),
    circuits: (tool) => executeStage.circuits.list(tool),
    resetCircuits: (tool, key) => executeStage.circuits.reset(tool, key),
    registry,
  };
}
