import { resultJson } from '../api/serialize';
import { type BatchOptions, executeBatch } from '../executor/execute-batch';
import { modelMessageContent } from '../executor/model-message';
import type { ExecutionContext, ToolCall, ToolResult } from '../executor/types';
import type { Toolscope } from '../server/create-toolscope';
import { type CallSource, planCalls } from './call-ledger';
import { hasFinished, recordedResult } from './recorded-result';

/** A call's answer: its entry of `results`, and the `role: "tool"` message the model gets. */
export interface CallAnswer {
  result: Record<string, unknown>;
  message: { role: 'tool'; tool_call_id: string; content: string };
}

/** Calls to run as one batch (one request's), and how the request waits for them. */
export interface CallsRequest {
  calls: ToolCall[];
  /** Shared by every call (each gets a new trace id; the batch a new batch id). */
  ctx: ExecutionContext;
  /** Default 4. */
  maxConcurrency?: number;
  failFast?: boolean;
  /** false: answer as soon as every call has finished or awaits approval. */
  wait?: boolean;
  /** Runs one call: the executor's, unless the caller adds context per call (a session replay). */
  execute?: (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>;
  /**
   * At most once per tool call id (`planCalls`): a call that repeats the principal, session and
   * tool call id of one pending, running or finished is answered from that call — waited for as
   * this request waits, or from the store at once — instead of running again; its result says
   * `metadata.deduplicated: true`. Off for replays and recording mode.
   */
  once?: boolean;
  /** Called once before the calls this request runs start; not when every call was answered from another. */
  beforeRun?: () => void;
}

/**
 * Runs calls as one batch and answers each as `POST /api/v1/tool-calls` does, in input order:
 * finished calls with their result; calls still awaiting approval once the request stops waiting
 * (at once with `wait: false`, else after `approvals.waitMs`) as `awaiting_approval`, or as
 * `running` once approved, released to go on without the request. Replay, session replay and the
 * playground answer through it too.
 */
export async function answerCalls(ts: Toolscope, request: CallsRequest): Promise<CallAnswer[]> {
  const { calls } = request;
  const waiting = new ApprovalWait(calls.length, request.wait === false ? 0 : ts.config.approvals.waitMs);
  const sources = request.once ? planCalls(ts, calls, request.ctx) : null;
  const batch = runHere(ts, request, sources, waiting);
  if (sources) follow(ts, sources, waiting);
  const repeated = (index: number) => sources !== null && sources[index]?.kind !== 'run';
  if ((await waiting.answer) === 'done') {
    return (waiting.results as ToolResult[]).map((result, index) => answerOf(result, repeated(index)));
  }
  batch?.catch((error: unknown) => console.error('[toolscope] a batch answered while pending failed:', error));
  return calls.map((call, index) => {
    const result = waiting.results?.[index];
    if (result) return answerOf(result, repeated(index));
    return answerPending(ts, waiting.waitingIds?.get(index) ?? '', call.id ?? '', !repeated(index));
  });
}

/**
 * Starts the calls this request runs (all of them, unless some repeat a call): as one batch,
 * telling the wait — and the requests that repeat them — when each awaits approval or settles.
 * Null when there is none to run.
 */
function runHere(
  ts: Toolscope,
  request: CallsRequest,
  sources: CallSource[] | null,
  waiting: ApprovalWait,
): Promise<ToolResult[]> | null {
  const indexes = sources?.flatMap((source, index) => (source.kind === 'run' ? [index] : [])) ?? null;
  const runs = indexes ? indexes.map((index) => request.calls[index] as ToolCall) : request.calls;
  if (runs.length === 0) return null;
  const at = (i: number) => (indexes ? (indexes[i] as number) : i);
  const openOf = (i: number) => {
    const source = sources?.[at(i)];
    return source?.kind === 'run' ? source.open : null;
  };
  try {
    request.beforeRun?.();
  } catch (error) {
    for (let i = 0; i < runs.length; i++) openOf(i)?.failed(error);
    throw error;
  }
  const options: BatchOptions = {
    maxConcurrency: request.maxConcurrency ?? 4,
    failFast: request.failFast ?? false,
    onAwaitingApproval: (i, traceId) => {
      waiting.pending(at(i), traceId);
      openOf(i)?.pending(traceId);
    },
    onSettled: (i, result) => {
      waiting.settled(at(i), result);
      openOf(i)?.settled(result);
    },
  };
  const batch = request.execute
    ? executeBatch(request.execute, runs, options, request.ctx)
    : ts.executor.executeBatch(runs, options, request.ctx);
  batch.catch((error: unknown) => {
    for (let i = 0; i < runs.length; i++) openOf(i)?.failed(error);
    waiting.fail(error);
  });
  return batch;
}

/** The calls this request repeats: each followed as the request that ran it follows it. */
function follow(ts: Toolscope, sources: CallSource[], waiting: ApprovalWait): void {
  sources.forEach((source, index) => {
    if (source.kind === 'open') {
      source.call.follow({
        pending: (traceId) => waiting.pending(index, traceId),
        settled: (result) => waiting.settled(index, result),
        failed: (error) => waiting.fail(error),
      });
    } else if (source.kind === 'recorded') {
      const { traceId } = source;
      const finished = ts.executor.whenFinished(traceId);
      if (finished) {
        // In flight since a restart took it up: a call waiting for a person is waited for as such.
        if (ts.executor.inFlight(traceId)?.approval) waiting.pending(index, traceId);
        void finished.then((result) => waiting.settled(index, result));
        return;
      }
      const trace = ts.store.get(traceId);
      if (trace && hasFinished(trace)) waiting.settled(index, recordedResult(trace));
      // Pending but not taken up yet (its MCP server has not connected): answered as it stands.
      else waiting.pending(index, traceId);
    }
  });
}

/** A finished call: its result, and the `role: "tool"` message the model gets. */
function answerOf(result: ToolResult, repeated: boolean): CallAnswer {
  const json = resultJson(result) as Record<string, unknown> & { metadata: Record<string, unknown> };
  if (repeated) json.metadata.deduplicated = true;
  return {
    result: json,
    message: { role: 'tool', tool_call_id: result.toolCallId, content: modelMessageContent(result) },
  };
}

/**
 * The answer for a call the request stopped waiting for: its caller is released (a closed
 * connection no longer cancels it), and it is reported as it stands, with where its outcome will
 * be — `awaiting_approval` (it has not run), or `running` once approved (never "has not run":
 * a model told so might make the call again). A call that ended meanwhile gets its result.
 */
function answerPending(ts: Toolscope, traceId: string, sentId: string, own: boolean): CallAnswer {
  if (own) ts.executor.release(traceId);
  // The call's own record: it says what it waits for before the queue has listed it.
  const live = ts.executor.inFlight(traceId) ?? ts.store.get(traceId);
  if (live && hasFinished(live)) return answerOf(recordedResult(live), !own);
  // A call sent without an id got one generated with its trace.
  const toolCallId = sentId || live?.toolCallId || '';
  const tool = live?.tool ?? '';
  const approval = live?.approval;
  const running = live?.status === 'running' && approval?.decision === 'approved';
  const attempts = running ? (live?.attempts.length ?? 0) : 0;
  const expires = approval?.expiresAt;
  const until = expires ? ` It expires at ${new Date(expires).toISOString()} if no one decides.` : '';
  const by = approval?.by ? ` by ${approval.by}` : '';
  const outcome = `Its outcome will be at GET /api/v1/traces/${traceId}.`;
  return {
    result: {
      tool_call_id: toolCallId,
      trace_id: traceId,
      tool,
      status: running ? 'running' : 'awaiting_approval',
      success: false,
      output: null,
      error: null,
      latency_ms: null,
      attempts,
      metadata: { trace_id: traceId, attempts, ...(own ? {} : { deduplicated: true }) },
    },
    message: {
      role: 'tool',
      tool_call_id: toolCallId,
      content: running
        ? `The call to ${tool} was approved${by} and is running now; do not make it again. ${outcome}`
        : `The call to ${tool} is waiting for a person to approve it, so it has not run yet.${until} ${outcome}`,
    },
  };
}

/**
 * When a request that has calls awaiting approval is answered: once every call has finished or
 * waits, at once (`waitMs` 0, `"wait": false`) or after `waitMs` — the calls' own end answers
 * sooner when every call is decided in time. On the hot path (no call waits) it costs one promise:
 * the rest is made when a call first waits.
 */
class ApprovalWait {
  /** `done` once every call has its result; `now` when the request is answered while calls still wait. */
  readonly answer: Promise<'done' | 'now'>;
  /** Results so far, by index; made at the first result. */
  results: (ToolResult | undefined)[] | null = null;
  /** Calls waiting for a person, by index; made when one first waits. */
  waitingIds: Map<number, string> | null = null;
  private done = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private resolve!: (answer: 'done' | 'now') => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly calls: number,
    private readonly waitMs: number,
  ) {
    this.answer = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  pending(index: number, traceId: string): void {
    if (this.results?.[index]) return;
    this.waitingIds ??= new Map();
    this.waitingIds.set(index, traceId);
    this.check();
  }

  settled(index: number, result: ToolResult): void {
    this.results ??= new Array(this.calls);
    if (this.results[index]) return;
    this.results[index] = result;
    this.done++;
    this.waitingIds?.delete(index);
    if (this.done === this.calls) {
      clearTimeout(this.timer);
      this.resolve('done');
    } else this.check();
  }

  /** No result will come for a call (a defect in the batch running it). */
  fail(error: unknown): void {
    clearTimeout(this.timer);
    this.reject(error);
  }

  private check(): void {
    const waiting = this.waitingIds?.size ?? 0;
    if (waiting === 0 || this.done + waiting < this.calls) return;
    if (this.waitMs <= 0) this.resolve('now');
    else this.timer ??= setTimeout(() => this.resolve('now'), this.waitMs);
  }
}
