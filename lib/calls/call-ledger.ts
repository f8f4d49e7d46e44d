import type { ExecutionContext, ToolCall, ToolResult } from '../executor/types';
import type { Toolscope } from '../server/create-toolscope';

/** What a request repeating a call hears of it, as the request running it does. */
export interface CallFollower {
  /** The call waits for a person (told at once when it already does). */
  pending(traceId: string): void;
  settled(result: ToolResult): void;
  /** The batch running it failed (a defect): no result will come. */
  failed(error: unknown): void;
}

/**
 * A call one request of this process runs, under its key (principal, session, tool call id),
 * from the moment the request takes it until its result is recorded: requests repeating it
 * follow it instead of running it again.
 */
export class OpenCall {
  /** Set once the call waits for a person. */
  traceId: string | null = null;
  private followers: CallFollower[] = [];

  constructor(
    private readonly open: Map<string, OpenCall>,
    private readonly key: string,
  ) {
    open.set(key, this);
  }

  follow(follower: CallFollower): void {
    this.followers.push(follower);
    if (this.traceId !== null) follower.pending(this.traceId);
  }

  pending(traceId: string): void {
    this.traceId = traceId;
    for (const follower of this.followers) follower.pending(traceId);
  }

  /** The call's result is recorded (what a lookup in the store finds from now on): it closes. */
  settled(result: ToolResult): void {
    this.close();
    for (const follower of this.followers) follower.settled(result);
  }

  failed(error: unknown): void {
    this.close();
    for (const follower of this.followers) follower.failed(error);
  }

  private close(): void {
    if (this.open.get(this.key) === this) this.open.delete(this.key);
  }
}

/**
 * How a call of a request is answered under at most once per tool call id: run by this request
 * (`open` is what repeats follow; null when the call has no key), joined to the same call another
 * request of this process is running, or answered from the call recorded under its key (finished,
 * or in flight since a restart took it up).
 */
export type CallSource =
  | { kind: 'run'; open: OpenCall | null }
  | { kind: 'open'; call: OpenCall }
  | { kind: 'recorded'; traceId: string };

const ledgers = new WeakMap<Toolscope, Map<string, OpenCall>>();

/**
 * Where each call of a request comes from, at most once per tool call id: a call is the same
 * call again when its principal, `session_id` and tool call id are (a call without a session or
 * an id of its own is always new). Calls running in this process are found in memory (so two
 * requests at once join), others by one indexed query (`ts.findCall`). Synchronous: nothing
 * else runs between the look-up and the claim of a new call. Null when the request has no
 * session: every call runs, and nothing is looked up.
 */
export function planCalls(ts: Toolscope, calls: readonly ToolCall[], ctx: ExecutionContext): CallSource[] | null {
  const sessionId = ctx.sessionId ?? null;
  if (sessionId === null) return null;
  let open = ledgers.get(ts);
  if (!open) {
    open = new Map();
    ledgers.set(ts, open);
  }
  const principal = ctx.principal ?? null;
  return calls.map((call): CallSource => {
    if (!call.id) return { kind: 'run', open: null };
    const key = JSON.stringify([principal?.id ?? null, sessionId, call.id]);
    const running = open.get(key);
    if (running) return { kind: 'open', call: running };
    const traceId = ts.findCall({ sessionId, toolCallId: call.id, principal });
    if (traceId !== null) return { kind: 'recorded', traceId };
    return { kind: 'run', open: new OpenCall(open, key) };
  });
}
