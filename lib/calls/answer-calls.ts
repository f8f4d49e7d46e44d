import { resultJson } from '../api/serialize';
import { type BatchOptions, executeBatch } from '../executor/execute-batch';
import { modelMessageContent } from '../executor/model-message';
import type { ExecutionContext, ToolCall, ToolResult } from '../executor/types';
import type { Toolscope } from '../server/create-toolscope';

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
}

/**
 * Runs calls as one batch and answers each as `POST /api/v1/tool-calls` does, in input order:
 * finished calls with their result, calls still awaiting approval once the request stops waiting
 * (at once with `wait: false`, else after `approvals.waitMs`) as `awaiting_approval`, released to
 * go on when decided. Replay, session replay and the playground answer through it too.
 */
export async function answerCalls(ts: Toolscope, request: CallsRequest): Promise<CallAnswer[]> {
  const { calls } = request;
  const waiting = new ApprovalWait(calls.length, request.wait === false ? 0 : ts.config.approvals.waitMs);
  const options: BatchOptions = {
    maxConcurrency: request.maxConcurrency ?? 4,
    failFast: request.failFast ?? false,
    onAwaitingApproval: (index, traceId) => waiting.pending(index, traceId),
    onSettled: (index, result) => waiting.settled(index, result),
  };
  const batch = request.execute
    ? executeBatch(request.execute, calls, options, request.ctx)
    : ts.executor.executeBatch(calls, options, request.ctx);
  const first = await waiting.answer(batch);
  if (first !== 'now') return first.map(answerOf);
  return answeredWhilePending(
    batch,
    waiting,
    ts,
    calls.map((call) => call.id ?? ''),
  );
}

/** A finished call: its result, and the `role: "tool"` message the model gets. */
function answerOf(result: ToolResult): CallAnswer {
  return {
    result: resultJson(result) as Record<string, unknown>,
    message: { role: 'tool', tool_call_id: result.toolCallId, content: modelMessageContent(result) },
  };
}

/**
 * When a request that has calls awaiting approval is answered: once every call has finished or
 * waits, at once (`waitMs` 0, `"wait": false`) or after `waitMs` — the batch's own end answers
 * sooner when every call is decided in time. On the hot path (no call waits) it costs one promise:
 * the rest is made when a call first waits.
 */
class ApprovalWait {
  /** Results so far, by index; made at the first result. */
  results: (ToolResult | undefined)[] | null = null;
  /** Calls waiting for a person, by index; made when one first waits. */
  waitingIds: Map<number, string> | null = null;
  private done = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private answerNow: ((now: 'now') => void) | null = null;

  constructor(
    private readonly calls: number,
    private readonly waitMs: number,
  ) {}

  /** The batch's results, or `'now'` when the request is to be answered while calls still wait. */
  answer(batch: Promise<ToolResult[]>): Promise<ToolResult[] | 'now'> {
    return new Promise((resolve, reject) => {
      this.answerNow = resolve;
      batch.then(resolve, reject);
    });
  }

  pending(index: number, traceId: string): void {
    this.waitingIds ??= new Map();
    this.waitingIds.set(index, traceId);
    this.check();
  }

  settled(index: number, result: ToolResult): void {
    this.results ??= new Array(this.calls);
    this.results[index] = result;
    this.done++;
    this.waitingIds?.delete(index);
    if (this.done === this.calls) clearTimeout(this.timer);
    else this.check();
  }

  private check(): void {
    const waiting = this.waitingIds?.size ?? 0;
    if (waiting === 0 || this.done + waiting < this.calls) return;
    if (this.waitMs <= 0) this.answerNow?.('now');
    else this.timer ??= setTimeout(() => this.answerNow?.('now'), this.waitMs);
  }
}

/**
 * The answer while some calls still await approval: their callers are released (a closed
 * connection no longer cancels them) and they are reported `awaiting_approval`, with where their
 * outcome will be; the batch goes on without anyone waiting for it.
 */
function answeredWhilePending(
  batch: Promise<ToolResult[]>,
  waiting: ApprovalWait,
  ts: Toolscope,
  toolCallIds: string[],
): CallAnswer[] {
  batch.catch((error: unknown) => console.error('[toolscope] a batch answered while pending failed:', error));
  return Array.from({ length: toolCallIds.length }, (_, index) => {
    const result = waiting.results?.[index];
    if (result) return answerOf(result);
    const traceId = waiting.waitingIds?.get(index) ?? '';
    ts.executor.release(traceId);
    // The call's own record: it says what it waits for before the queue has listed it.
    const live = ts.executor.inFlight(traceId);
    // A call sent without an id got one generated with its trace.
    const toolCallId = toolCallIds[index] || live?.toolCallId || '';
    const tool = live?.tool ?? '';
    const expires = live?.approval?.expiresAt;
    const until = expires ? ` It expires at ${new Date(expires).toISOString()} if no one decides.` : '';
    return {
      result: {
        tool_call_id: toolCallId,
        trace_id: traceId,
        tool,
        status: 'awaiting_approval',
        success: false,
        output: null,
        error: null,
        latency_ms: null,
        attempts: 0,
        metadata: { trace_id: traceId, attempts: 0 },
      } as Record<string, unknown>,
      message: {
        role: 'tool',
        tool_call_id: toolCallId,
        content: `The call to ${tool} is waiting for a person to approve it, so it has not run yet.${until} Its outcome will be at GET /api/v1/traces/${traceId}.`,
      },
    };
  });
}
