import { computeBackoff } from './backoff';
import { type CircuitBreaker, type CircuitState, createCircuitBreaker } from './circuit-breaker';
import { type Clock, sleep, systemClock } from './clock';
import { errorData } from './errors';
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
import { runAttempt } from './run-attempt';
import { createStageRecorder, roundMs } from './stage-recorder';
import type {
  AnyTool,
  Attempt,
  CallStatus,
  ExecutionContext,
  SideEffect,
  ToolCall,
  ToolErrorData,
  ToolResult,
  TraceRecord,
  TraceSink,
} from './types';
import { validateInput } from './validate-input';

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

export interface BatchOptions {
  /** Calls running at once (default 4). */
  maxConcurrency?: number;
  /** After the first failure, calls not yet started are cancelled. */
  failFast?: boolean;
}

export interface Executor {
  execute(call: ToolCall, ctx?: ExecutionContext): Promise<ToolResult>;
  executeBatch(calls: readonly ToolCall[], options?: BatchOptions, ctx?: ExecutionContext): Promise<ToolResult[]>;
  circuitState(tool: string): CircuitState;
  readonly registry: Registry;
}

interface ExecuteOutcome {
  value?: unknown;
  error?: ToolErrorData;
  /** The tool that produced the value (a fallback, possibly). */
  tool: AnyTool;
  fellBackTo: string | null;
}

function statusFor(error: ToolErrorData | undefined): CallStatus {
  if (!error) return 'succeeded';
  return error.kind === 'permission' ? 'denied' : 'failed';
}

/** Errors after which a fallback tool is worth trying: the primary is down, not the request wrong. */
function warrantsFallback(error: ToolErrorData): boolean {
  return error.code !== 'CANCELLED' && (error.retryable || error.code === 'CIRCUIT_OPEN');
}

/** Breakers count failures that say the tool is unwell, not calls it answered with a "no". */
function isHealthFailure(error: ToolErrorData): boolean {
  return error.kind === 'temporary' || error.kind === 'timeout';
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
  const breakers = new Map<string, CircuitBreaker>();

  function breakerFor(tool: AnyTool): CircuitBreaker | null {
    if (!tool.circuitBreaker) return null;
    let breaker = breakers.get(tool.name);
    if (!breaker) {
      breaker = createCircuitBreaker(tool.circuitBreaker);
      breakers.set(tool.name, breaker);
    }
    return breaker;
  }

  function sideEffectOf(tool: AnyTool, input: unknown): SideEffect {
    if (!tool.sideEffectOf) return tool.sideEffect;
    try {
      return tool.sideEffectOf(input);
    } catch {
      return tool.sideEffect;
    }
  }

  /** Runs one tool's attempts with backoff between retryable failures. */
  async function runAttempts(
    tool: AnyTool,
    input: unknown,
    record: TraceRecord,
    t0: number,
    ctx: ExecutionContext,
    fallback: boolean,
  ): Promise<{ value?: unknown; error?: ToolErrorData }> {
    const breaker = breakerFor(tool);
    if (breaker && !breaker.tryAcquire(clock.now())) {
      const retryIn = Math.ceil(breaker.retryInMs(clock.now()));
      return {
        error: errorData(
          'CIRCUIT_OPEN',
          `${tool.name} failed too many times in a row; it is not being called for ${retryIn} ms.`,
          { details: { tool: tool.name, retryInMs: retryIn }, stage: 'execute' },
        ),
      };
    }
    const attemptsBefore = record.attempts.length;
    let last: { value?: unknown; error?: ToolErrorData } = {};
    for (let n = 1; n <= tool.retry.maxAttempts; n++) {
      const fault =
        options.faults?.faultFor({ traceId: record.id, tool: tool.name, sessionId: record.sessionId, attempt: n }) ??
        null;
      const started = clock.now();
      const result = await runAttempt(
        tool,
        input,
        {
          traceId: record.id,
          toolCallId: record.toolCallId,
          sessionId: record.sessionId,
          actor: record.actor,
          attempt: n,
          clock,
          metadata: record.metadata,
        },
        { clock, parentSignal: ctx.signal, fault },
      );
      const attempt: Attempt = {
        number: record.attempts.length - attemptsBefore + 1,
        tool: tool.name,
        fallback,
        startedAt: roundMs(started - t0),
        durationMs: roundMs(clock.now() - started),
        outcome: result.outcome,
        error: result.outcome === 'ok' ? null : result.error,
        backoffMs: null,
        fault: fault ? fault.type : null,
      };
      record.attempts.push(attempt);
      if (fault) record.flags.faulted = true;
      if (result.outcome === 'ok') {
        last = { value: result.value };
        break;
      }
      last = { error: result.error };
      if (result.cancelled || !result.error.retryable || n === tool.retry.maxAttempts) break;
      const backoff = computeBackoff(tool.retry, n, random());
      attempt.backoffMs = backoff;
      record.flags.retried = true;
      try {
        await sleep(clock, backoff, ctx.signal);
      } catch {
        last = {
          error: errorData('CANCELLED', 'The call was cancelled while waiting to retry.', { stage: 'execute' }),
        };
        break;
      }
    }
    if (breaker) {
      if (last.error && isHealthFailure(last.error)) breaker.onFailure(clock.now());
      else breaker.onSuccess();
    }
    return last;
  }

  /** Stage 4: the tool's attempts, then its fallbacks while they are worth trying. */
  async function executeStage(
    tool: AnyTool,
    input: unknown,
    record: TraceRecord,
    t0: number,
    ctx: ExecutionContext,
    notes: string[],
  ): Promise<ExecuteOutcome> {
    let outcome = await runAttempts(tool, input, record, t0, ctx, false);
    if (!outcome.error || !warrantsFallback(outcome.error)) return { ...outcome, tool, fellBackTo: null };
    const primaryError = outcome.error;
    for (const name of tool.fallbacks) {
      const fallback = registry.get(name);
      if (!fallback) {
        notes.push(`fallback ${name}: not registered`);
        continue;
      }
      const checked = validateInput(fallback.name, fallback.inputSchema, input);
      if (!checked.ok) {
        notes.push(`fallback ${name}: arguments do not fit its schema`);
        continue;
      }
      if (policyOf(fallback.name, sideEffectOf(fallback, checked.value)) !== 'allow') {
        notes.push(`fallback ${name}: its policy does not allow running it unasked`);
        continue;
      }
      record.flags.fellBack = true;
      outcome = await runAttempts(fallback, checked.value, record, t0, ctx, true);
      if (!outcome.error) {
        notes.push(`fell back to ${name} after ${primaryError.code}`);
        return { ...outcome, tool: fallback, fellBackTo: name };
      }
      notes.push(`fallback ${name} failed: ${outcome.error.code}`);
      if (!warrantsFallback(outcome.error)) break;
    }
    return { error: outcome.error ?? primaryError, tool, fellBackTo: null };
  }

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
    const outcome = await executeStage(tool, input, record, t0, ctx, notes);
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

  async function executeBatch(
    calls: readonly ToolCall[],
    batch: BatchOptions = {},
    ctx: ExecutionContext = {},
  ): Promise<ToolResult[]> {
    const limit = Math.max(1, Math.floor(batch.maxConcurrency ?? 4));
    const results = new Array<ToolResult>(calls.length);
    const cancelled = new AbortController();
    cancelled.abort(new Error('fail-fast: an earlier call in the batch failed'));
    let next = 0;
    let failed = false;
    // A pool of workers pulling the next call: a semaphore, so a slow call never holds a slot idle.
    const worker = async () => {
      while (next < calls.length) {
        const index = next++;
        const call = calls[index] as ToolCall;
        const skip = batch.failFast && failed;
        const result = await execute(call, {
          ...ctx,
          traceId: undefined,
          signal: skip ? cancelled.signal : ctx.signal,
        });
        results[index] = result;
        if (!result.success) failed = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
    return results;
  }

  return {
    execute,
    executeBatch,
    circuitState: (name) => breakers.get(name)?.state(clock.now()) ?? 'closed',
    registry,
  };
}
