import type { CircuitState } from './circuit-breaker';
import { type Clock, systemClock } from './clock';
import { errorData } from './errors';
import { type BatchOptions, executeBatch } from './execute-batch';
import { createExecuteStage, sideEffectOf } from './execute-stage';
import { modelMessageContent } from './model-message';
import { DEFAULT_OUTPUT_LIMITS, type Normalized, normalizeOutput, type OutputLimits } from './normalize';
import { parseArguments, rawArgumentsOf } from './parse-arguments';
import {
  type ApprovalDecision,
  type Approver,
  defaultPolicy,
  denyUntilApproved,
  type FaultSource,
  type PolicyResolver,
} from './ports';
import { createRedactor, type Redactor } from './redact';
import type { Registry } from './registry';
import { createStageRecorder, roundMs } from './stage-recorder';
import type {
  CallStatus,
  ExecutionContext,
  ToolCall,
  ToolErrorData,
  ToolResult,
  TraceRecord,
  TraceSink,
} from './types';
import { validateInput } from './validate-input';

export type { BatchOptions } from './execute-batch';

export interface ExecutorOptions {
  registry: Registry;
  sink: TraceSink;
  /** Decides `ask` calls; by default they are denied with "approval required". */
  approver?: Approver;
  /** Per-call policy; by default `none`/`read` allow and `write`/`exec` ask. */
  policy?: PolicyResolver;
  clock?: Clock;
  /** [0, 1) source for backoff jitter. */
  random?: () => number;
  faults?: FaultSource;
  redactor?: Redactor;
  limits?: Partial<OutputLimits>;
  newId?: () => string;
}

export interface Executor {
  execute(call: ToolCall, ctx?: ExecutionContext): Promise<ToolResult>;
  executeBatch(calls: readonly ToolCall[], options?: BatchOptions, ctx?: ExecutionContext): Promise<ToolResult[]>;
  circuitState(tool: string): CircuitState;
  readonly registry: Registry;
}

function statusFor(error: ToolErrorData | undefined): CallStatus {
  if (!error) return 'succeeded';
  return error.kind === 'permission' ? 'denied' : 'failed';
}

/**
 * Creates the executor: the one pipeline every tool call goes through, whatever its source.
 * Its ports (sink, approver, clock, faults, policy) are all injected.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const { registry, sink } = options;
  const approver = options.approver ?? denyUntilApproved;
  const policyOf = options.policy ?? defaultPolicy;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const redactor = options.redactor ?? createRedactor();
  const limits = { ...DEFAULT_OUTPUT_LIMITS, ...options.limits };
  const newId = options.newId ?? (() => crypto.randomUUID());
  const executeStage = createExecuteStage({ registry, clock, random, faults: options.faults, policyOf });

  /**
   * Runs one tool call through the pipeline; never throws for anything a tool or model causes.
   * 1. parse     — arguments from a JSON string or an object
   * 2. validate  — the tool exists and the arguments match its schema
   * 3. permission — allow / ask (through the approver) / deny
   * 4. execute   — attempts under timeouts, retries with backoff, fallbacks, circuit breaker
   * 5. normalize — one result shape, secrets scrubbed, output checked and truncated
   * 6. trace     — the record is finalized, whatever happened
   */
  async function execute(call: ToolCall, ctx: ExecutionContext = {}): Promise<ToolResult> {
    const t0 = clock.now();
    const traceId = ctx.traceId ?? newId();
    const stages = createStageRecorder(clock, t0);
    const record: TraceRecord = {
      id: traceId,
      toolCallId: call.id || `call_${traceId.replace(/-/g, '').slice(0, 24)}`,
      sessionId: ctx.sessionId ?? null,
      actor: ctx.actor ?? 'api',
      tool: typeof call.name === 'string' ? call.name : String(call.name),
      status: 'running',
      sideEffect: null,
      arguments: null,
      rawArguments: rawArgumentsOf(call.arguments),
      createdAt: clock.epochMs(),
      finishedAt: null,
      latencyMs: null,
      stages: stages.list,
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
    if (ctx.metadata?.replayOf) record.flags.replayed = true;
    let secrets: string[] = [];
    let begun = false;

    const finish = async (
      error: ToolErrorData | undefined,
      normalized: Normalized | null,
      fellBackTo: string | null,
    ): Promise<ToolResult> => {
      stages.skipRest('trace');
      const traceStart = clock.now();
      record.status = statusFor(error);
      record.error = error ?? null;
      record.finishedAt = clock.epochMs();
      record.latencyMs = Math.max(0, roundMs(clock.now() - t0));
      const result: ToolResult = {
        toolCallId: record.toolCallId,
        traceId,
        tool: record.tool,
        status: record.status,
        success: !error,
        latencyMs: record.latencyMs,
        metadata: {
          traceId,
          attempts: record.attempts.length,
          stderr: normalized?.stderr ?? null,
          exitCode: normalized?.exitCode ?? null,
          truncated: normalized?.truncated ?? false,
          parseFailed: normalized?.parseFailed ?? false,
          fellBackTo,
          faulted: record.flags.faulted,
        },
      };
      if (error) result.error = error;
      else result.output = normalized?.modelOutput ?? null;
      record.modelMessage = modelMessageContent(result);
      stages.add('trace', traceStart, 'ok', begun ? 'finalized' : 'recorded');
      try {
        const pending = sink.finish(record);
        if (pending) await pending;
      } catch (cause) {
        // The caller still gets its result; the failure to record is reported, not swallowed.
        console.error(`[toolscope] could not record trace ${traceId}:`, cause);
        const last = stages.list[stages.list.length - 1];
        if (last) Object.assign(last, { status: 'failed', detail: `could not record: ${String(cause)}` });
      }
      return result;
    };

    const reject = (error: ToolErrorData) => {
      stages.skipRest('trace');
      return finish(error, null, null);
    };

    if (ctx.signal?.aborted) {
      const early = parseArguments(call.arguments);
      record.arguments = early.ok ? redactor.redact(early.value).value : redactor.scrubText(record.rawArguments);
      return reject(errorData('CANCELLED', 'The call was cancelled before it started.', { stage: 'parse' }));
    }

    // 1. parse
    let start = clock.now();
    const parsed = parseArguments(call.arguments);
    if (!parsed.ok) {
      record.arguments = redactor.scrubText(record.rawArguments);
      stages.add('parse', start, 'failed', parsed.error.message);
      return reject(parsed.error);
    }
    stages.add('parse', start, 'ok', typeof call.arguments === 'string' ? 'JSON string' : 'object');

    // 2. validate
    start = clock.now();
    const tool = registry.get(record.tool);
    if (!tool) {
      record.arguments = redactor.redact(parsed.value).value;
      const available = registry.list().map((t) => t.name);
      const error = errorData('UNKNOWN_TOOL', `There is no tool named "${record.tool}".`, {
        hint: `Call one of: ${available.join(', ') || '(none registered)'}.`,
        details: { available },
        stage: 'validate',
      });
      stages.add('validate', start, 'failed', error.message);
      return reject(error);
    }
    const redacted = redactor.redact(parsed.value, tool.sensitivePaths);
    record.arguments = redacted.value;
    secrets = redacted.secrets;
    const validated = validateInput(tool.name, tool.inputSchema, parsed.value);
    if (!validated.ok) {
      record.sideEffect = tool.sideEffect;
      stages.add('validate', start, 'failed', validated.error.message);
      return reject(validated.error);
    }
    let input = validated.value;
    record.sideEffect = sideEffectOf(tool, input);
    stages.add('validate', start, 'ok', null);

    // The record is durable before anything with a side effect can run.
    try {
      const pending = sink.begin(record);
      if (pending) await pending;
      begun = true;
    } catch (cause) {
      return reject(
        errorData('TRACE_UNAVAILABLE', 'Toolscope could not record the call, so it was not run.', {
          details: { cause: String(cause) },
          stage: 'permission',
        }),
      );
    }

    // 3. permission
    start = clock.now();
    const policy = policyOf(tool.name, record.sideEffect);
    if (policy === 'deny') {
      const error = errorData('PERMISSION_DENIED', `The policy denies calls to ${tool.name}.`, {
        details: { policy },
        stage: 'permission',
      });
      stages.add('permission', start, 'failed', `policy deny`);
      return reject(error);
    }
    if (policy === 'ask') {
      const waiting = stages.add('permission', start, 'waiting', 'awaiting approval');
      record.status = 'awaiting_approval';
      try {
        await sink.update(record);
      } catch (cause) {
        console.error(`[toolscope] could not record pending approval ${traceId}:`, cause);
      }
      const decision = await approver
        .request({
          traceId,
          toolCallId: record.toolCallId,
          sessionId: record.sessionId,
          tool: tool.name,
          sideEffect: record.sideEffect,
          arguments: record.arguments,
          input,
          signal: ctx.signal ?? new AbortController().signal,
        })
        .catch(
          (cause: unknown): ApprovalDecision => ({ approved: false, reason: `The approver failed: ${String(cause)}` }),
        );
      record.status = 'running';
      stages.list.pop();
      if (!decision.approved) {
        const error = decision.timedOut
          ? errorData('APPROVAL_TIMEOUT', decision.reason, { stage: 'permission' })
          : errorData('PERMISSION_DENIED', decision.reason, { details: { policy }, stage: 'permission' });
        stages.add('permission', waiting.start, 'failed', decision.reason);
        return reject(error);
      }
      if (decision.input !== undefined) {
        const edited = validateInput(tool.name, tool.inputSchema, decision.input);
        if (!edited.ok) {
          stages.add('permission', waiting.start, 'failed', 'edited arguments are invalid');
          return reject({ ...edited.error, stage: 'permission' });
        }
        input = edited.value;
        const redactedEdit = redactor.redact(decision.input, tool.sensitivePaths);
        record.metadata = { ...record.metadata, editedArguments: redactedEdit.value };
        secrets = [...secrets, ...redactedEdit.secrets];
      }
      stages.add('permission', waiting.start, 'ok', `approved${decision.by ? ` by ${decision.by}` : ''}`);
    } else {
      stages.add('permission', start, 'ok', `policy ${policy}`);
    }

    // 4. execute
    start = clock.now();
    const notes: string[] = [];
    const outcome = await executeStage.run(tool, input, record, t0, ctx, notes);
    const attemptsNote = `${record.attempts.length} attempt${record.attempts.length === 1 ? '' : 's'}`;
    if (outcome.error) {
      stages.add(
        'execute',
        start,
        'failed',
        [`${outcome.error.code}: ${outcome.error.message}`, attemptsNote, ...notes].join('; '),
      );
      return reject(outcome.error);
    }
    stages.add('execute', start, 'ok', [attemptsNote, ...notes].join('; '));

    // 5. normalize
    start = clock.now();
    const normalized = normalizeOutput(outcome.tool, outcome.value, redactor, secrets, limits);
    record.output = normalized.output;
    record.stdout = normalized.stdout;
    record.stderr = normalized.stderr;
    record.exitCode = normalized.exitCode;
    record.flags.truncated = normalized.truncated;
    if (normalized.error) {
      stages.add('normalize', start, 'failed', normalized.error.message);
      return finish(normalized.error, normalized, outcome.fellBackTo);
    }
    const flags = [normalized.truncated && 'truncated', normalized.parseFailed && 'stdout not JSON'].filter(Boolean);
    stages.add('normalize', start, 'ok', flags.join('; ') || null);

    // 6. trace
    return finish(undefined, normalized, outcome.fellBackTo);
  }

  return {
    execute,
    executeBatch: (calls, batch, ctx) => executeBatch(execute, calls, batch, ctx),
    circuitState: executeStage.circuitState,
    registry,
  };
}
