import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolRequest,
  CallToolResult,
  Implementation,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { isStoreUnavailableError } from '../../db/store-faults';
import { type Clock, systemClock, type TimerHandle } from '../../executor/clock';
import type { Executor } from '../../executor/executor';
import type { CallPrincipal, CancelReason, ExecutionContext } from '../../executor/types';
import { toCallToolResult, unavailableResult } from './call-tool-result';

/** What the `tools/call` handler of one MCP session needs. */
export interface CallToolDeps {
  executor: Pick<Executor, 'execute' | 'inFlight'>;
  /** Who opened the session: the principal of its calls. */
  principal: CallPrincipal | null;
  /** The session's id: the Toolscope session of its calls. */
  sessionId: string | undefined;
  /** The client's name and version from its `initialize`, kept with each call's trace. */
  client(): Implementation | undefined;
  /** Whether the session was ended (DELETE, expiry, shutdown): what aborted its calls then. */
  ended(): boolean;
  /** Between progress notifications while a call waits for approval (and runs after it). */
  keepAliveMs: number;
  clock?: Clock;
}

export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * MCP `tools/call`: one call through the executor, answered as MCP content.
 * 1. the call runs as actor `mcp` in the MCP session's Toolscope session, with the client's name
 *    and version in its metadata;
 * 2. the request's signal — a `notifications/cancelled` from the client, or the session ending —
 *    cancels it, recorded as CANCELLED with who and why;
 * 3. once it waits for approval, and while it then runs, a client that gave a progress token gets
 *    `notifications/progress` every `keepAliveMs`, so that it does not time the request out;
 * 4. the result is MCP content (`toCallToolResult`); a failure, an unknown tool included, is a
 *    result with `isError: true`, never a JSON-RPC error — a call the trace store refuses too
 *    (it cannot record it now: `TraceStore.admit`), saying so.
 */
export async function callTool(
  deps: CallToolDeps,
  params: CallToolRequest['params'],
  extra: McpRequestExtra,
): Promise<CallToolResult> {
  const client = deps.client();
  const controller = new AbortController();
  const onAbort = () => controller.abort(cancelReason(extra.signal.reason, deps.ended()));
  if (extra.signal.aborted) onAbort();
  else extra.signal.addEventListener('abort', onAbort, { once: true });
  const keepAlive = createKeepAlive(deps, params.name, extra);
  const ctx: ExecutionContext = {
    sessionId: deps.sessionId ?? null,
    actor: 'mcp',
    principal: deps.principal,
    signal: controller.signal,
    metadata: { mcp_client: { name: client?.name ?? null, version: client?.version ?? null } },
    onAwaitingApproval: keepAlive.start,
  };
  try {
    const result = await deps.executor.execute({ name: params.name, arguments: params.arguments ?? {} }, ctx);
    return toCallToolResult(result);
  } catch (error) {
    // The store refused the call before it started (it cannot record it now): the model reads why.
    if (isStoreUnavailableError(error)) return unavailableResult(error.message);
    // The executor answers everything a tool, a model or a stopping Toolscope can cause; a throw
    // past it is a bug of ours, which the model still gets as a failed call, not a protocol error.
    console.error('[toolscope] MCP tools/call failed:', error);
    const message = error instanceof Error ? error.message : String(error);
    return unavailableResult(`Toolscope failed to run the call: ${message}.`);
  } finally {
    keepAlive.stop();
    extra.signal.removeEventListener('abort', onAbort);
  }
}

/** Who cancelled, as the trace says it: the client (with its reason, if it gave one) or the session's end. */
function cancelReason(reason: unknown, sessionEnded: boolean): CancelReason {
  if (sessionEnded) return { by: 'mcp', reason: 'the MCP session ended' };
  const said = typeof reason === 'string' && reason.trim() ? `: ${reason.trim().slice(0, 500)}` : '';
  return { by: 'mcp', reason: `the MCP client cancelled the request${said}` };
}

/**
 * Progress notifications for a call that waits for a person: the first at once (clients show
 * it), then every `keepAliveMs` until the call ends. Without a progress token nothing is sent:
 * the client did not ask for progress (the SSE stream's own keep-alive still holds the connection).
 */
function createKeepAlive(deps: CallToolDeps, tool: string, extra: McpRequestExtra) {
  const clock = deps.clock ?? systemClock;
  const token = extra._meta?.progressToken;
  let timer: TimerHandle | null = null;
  let progress = 0;
  let stopped = false;
  const tick = (traceId: string) => {
    const status = deps.executor.inFlight(traceId)?.status;
    const message =
      status === 'awaiting_approval'
        ? `Waiting for approval of ${tool} (trace ${traceId}): approve or deny it in Toolscope's approvals.`
        : `Running ${tool} (trace ${traceId}).`;
    progress += 1;
    extra
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token!, progress, message } })
      .catch(() => {
        // The client's stream is gone: it can no longer be kept waiting, nor told.
      });
    if (!stopped) timer = clock.setTimeout(() => tick(traceId), deps.keepAliveMs);
  };
  return {
    start(traceId: string) {
      if (token === undefined || stopped || timer !== null) return;
      tick(traceId);
    },
    stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
    },
  };
}
