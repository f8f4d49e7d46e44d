import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { answerCalls } from '../../calls/answer-calls';
import { isVaultError } from '../../db/vault';
import { ApiError, zodMessage } from '../../errors';
import type { ExecutionContext, ToolCall } from '../../executor/types';
import { parseFaultSpec } from '../../faults/rule-schema';
import { type BodyIssue, planReplay, REPLAY_ACTOR } from '../../replay/plan-replay';
import { planSessionReplay } from '../../replay/plan-session-replay';
import { type ReplayFault, replayFaultContext } from '../../replay/replay-fault';
import { isSessionTooLargeError } from '../../replay/session-calls';
import type { Toolscope } from '../../server/create-toolscope';
import { audit } from '../audit';
import { clientSignal } from '../client-signal';
import type { HttpContext } from '../env';
import { optionalJsonBody, paramOf } from '../request';
import { json } from '../respond';
import { importedTraceError } from './traces';

const traceReplayBody = z
  .object({
    /** Edited arguments: an object or its JSON text (checked by `planReplay`, which names the field). */
    arguments: z.unknown().optional(),
    fault: z.unknown().optional(),
    wait: z.boolean().optional(),
    /** true: answered as soon as the replay has begun, which runs on without the request. */
    background: z.boolean().optional(),
  })
  .strict();

const sessionReplayBody = z.object({ fault: z.unknown().optional(), wait: z.boolean().optional() }).strict();

const invalid = (code: 'INVALID_REQUEST' | 'INVALID_ARGUMENTS', issues: BodyIssue[], message?: string) =>
  new ApiError(code, message ?? issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '), {
    errors: issues,
  });

/** The optional JSON body of a replay, `{}` when empty, checked against `schema`. */
function replayBody<T>(c: HttpContext, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(optionalJsonBody(c) ?? {});
  if (!parsed.success) throw new ApiError('INVALID_REQUEST', zodMessage(parsed.error));
  return parsed.data;
}

/** The one-off fault of a body, or the 400 naming its field; undefined when there is none. */
function faultOf(value: unknown): ReplayFault | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = parseFaultSpec(value);
  if (!parsed.ok) throw invalid('INVALID_REQUEST', parsed.issues);
  return { spec: parsed.spec, json: parsed.json };
}

/**
 * `POST /api/v1/traces/:id/replay` with an optional body `{ "arguments"?, "fault"?, "wait"?,
 * "background"? }`: runs the call again as a new trace through the whole pipeline (validation,
 * permission — a side-effectful call waits for approval again —, faults, retries), as actor
 * `replay`, recorded as a replay of `:id`, in a session of its own, `<session>~replay-<n>` (none
 * for a call without a session): the recorded session keeps only the calls that ran in it. Its
 * arguments are the sealed ones as the model sent them, or `arguments` with masked values kept as
 * recorded. 200 with the new call's entry of `results`, exactly as `POST /api/v1/tool-calls` gives
 * it (and waits, `wait: false` included); with `background: true`, at once, as the call stands
 * once it has begun (`running` or `awaiting_approval`; its result when it already ended) — it runs
 * on without the request, which a closed connection no longer cancels; 404 for an unknown trace;
 * 400 naming the field of a bad body, fault or arguments; 400 `SECRET_DESTINATION_CHANGED` naming
 * each kept secret's field when the edit would send a recorded secret somewhere else
 * (`http_request`: another origin) — the secret typed anew goes; 409 `VAULT_KEY_MISMATCH` when the
 * call's sealed arguments do not open (vault key missing or another one).
 */
export async function replayOne(c: HttpContext, ts: Toolscope): Promise<Response> {
  const id = paramOf(c, 'id');
  const body = replayBody(c, traceReplayBody);
  const fault = faultOf(body.fault);
  if (id.length <= 256 && ts.store.get(id)?.imported) throw importedTraceError(id);
  const planned =
    id.length > 256
      ? ({ ok: false, reason: 'not_found' } as const)
      : planReplay(ts.store, id, { arguments: body.arguments, fault, tools: ts.executor.registry });
  if (!planned.ok) {
    if (planned.reason === 'not_found') throw new ApiError('NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);
    if (planned.reason === 'vault_key_mismatch') throw new ApiError('VAULT_KEY_MISMATCH', planned.message);
    if (planned.reason === 'secret_destination_changed') {
      throw new ApiError('SECRET_DESTINATION_CHANGED', planned.message, { errors: planned.issues });
    }
    throw invalid('INVALID_ARGUMENTS', planned.issues, planned.message);
  }
  // Refused whole before anything runs (or is audited) while the store cannot record it: 503.
  ts.store.admit();
  audit(c, ts, 'trace.replayed', id, {
    edited_arguments: body.arguments !== undefined,
    fault: fault?.json ?? null,
  });
  const ctx = { ...planned.plan.ctx, principal: c.get('principal') };
  if (body.background) return json(c, await startInBackground(ts, planned.plan.call, ctx));
  const [answer] = await answerCalls(ts, {
    calls: [planned.plan.call],
    ctx: { ...ctx, signal: clientSignal(c) },
    wait: body.wait,
  });
  return json(c, answer?.result);
}

/**
 * Starts a replay that runs on without the request (no client signal) and answers its entry of
 * `results` as it stands now that it has begun — the executor holds it from its first step — or,
 * when it already ended (refused before it began, say), its result.
 */
async function startInBackground(ts: Toolscope, call: ToolCall, ctx: ExecutionContext) {
  const traceId = uuidv7();
  const answered = answerCalls(ts, {
    calls: [call],
    ctx,
    wait: false,
    execute: (one, oneCtx) => ts.executor.execute(one, { ...oneCtx, traceId }),
  });
  const live = ts.executor.inFlight(traceId);
  if (live?.status !== 'running' && live?.status !== 'awaiting_approval') return (await answered)[0]?.result;
  answered.catch((error: unknown) => console.error(`[toolscope] the replay ${traceId} failed:`, error));
  return {
    tool_call_id: live.toolCallId,
    trace_id: traceId,
    tool: live.tool,
    status: live.status,
    success: false,
    output: null,
    error: null,
    latency_ms: null,
    attempts: live.attempts.length,
    metadata: { trace_id: traceId, attempts: live.attempts.length },
  };
}

/**
 * `POST /api/v1/sessions/:id/replay` with an optional body `{ "fault"?, "wait"? }`: every call of
 * the session again, in the order they began, into a new session (actor `replay`, each a replay
 * of its original). Calls that ran in one batch run again in one batch (a new shared batch id);
 * batches run one after the other, each answered as `POST /api/v1/tool-calls` answers (a call
 * still awaiting approval when its batch stops waiting is reported so, and the next batch goes
 * on). 200 `{ "session_id", "results" }` with results in the recorded order; 404 when the
 * session has no calls; 409 `VAULT_KEY_MISMATCH`, nothing run, when a call's sealed arguments do not open.
 */
export async function replaySession(c: HttpContext, ts: Toolscope): Promise<Response> {
  const sessionId = paramOf(c, 'id');
  const body = replayBody(c, sessionReplayBody);
  const fault = faultOf(body.fault);
  let plan: ReturnType<typeof planSessionReplay>;
  try {
    plan = sessionId.length > 256 ? null : planSessionReplay(ts.store, sessionId);
  } catch (error) {
    if (isSessionTooLargeError(error)) throw new ApiError('SESSION_TOO_LARGE', `${error.message}.`);
    if (isVaultError(error)) throw new ApiError('VAULT_KEY_MISMATCH', error.message);
    throw error;
  }
  if (!plan) {
    // An imported session has calls, but none that can run again.
    const first = sessionId.length > 256 ? undefined : ts.store.list({ sessionId, limit: 1 }).items[0];
    if (first?.imported)
      throw new ApiError('IMPORTED_TRACE', `The session ${sessionId} was imported: it is read-only here.`);
    throw new ApiError('NOT_FOUND', `No calls in session "${sessionId.slice(0, 256)}".`);
  }
  ts.store.admit();
  audit(c, ts, 'session.replayed', sessionId, { into: plan.sessionId, calls: plan.size, fault: fault?.json ?? null });
  const results = new Array<Record<string, unknown>>(plan.size);
  const execute = plan.execute(ts.executor.execute);
  const signal = clientSignal(c);
  for (const batch of plan.batches) {
    const ctx = {
      sessionId: plan.sessionId,
      actor: REPLAY_ACTOR,
      principal: c.get('principal'),
      signal,
      ...replayFaultContext(fault),
    };
    const answers = await answerCalls(ts, { calls: batch.calls, ctx, execute, wait: body.wait });
    answers.forEach((answer, index) => {
      results[batch.positions[index] as number] = answer.result;
    });
  }
  return json(c, { session_id: plan.sessionId, results });
}
