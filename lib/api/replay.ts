import { z } from 'zod';
import { parseFaultSpec } from '../faults/rule-schema';
import { compareCalls } from '../replay/compare-calls';
import { compareSessions } from '../replay/compare-sessions';
import { type BodyIssue, planReplay, REPLAY_ACTOR } from '../replay/plan-replay';
import { planSessionReplay } from '../replay/plan-session-replay';
import { type ReplayFault, replayFaultContext } from '../replay/replay-fault';
import { isSessionTooLargeError } from '../replay/session-calls';
import type { Toolscope } from '../server/create-toolscope';
import { answerCalls, importedTraceError, zodMessage } from './handlers';
import { apiError, handle, readJsonBody } from './http';
import { guardJsonBody } from './request-guard';
import { summaryJson, traceJson } from './serialize';

/** Request bodies of the replay routes: small (edited arguments at most). */
const MAX_REPLAY_BODY = 1024 * 1024;

const traceReplayBody = z
  .object({
    /** Edited arguments: an object or its JSON text (checked by `planReplay`, which names the field). */
    arguments: z.unknown().optional(),
    fault: z.unknown().optional(),
    wait: z.boolean().optional(),
  })
  .strict();

const sessionReplayBody = z.object({ fault: z.unknown().optional(), wait: z.boolean().optional() }).strict();

const invalid = (code: string, issues: BodyIssue[], message?: string) =>
  apiError(400, code, message ?? issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '), {
    errors: issues,
  });

/**
 * The optional JSON body of a replay: `{}` when empty; a body that is there must be JSON
 * (content-type), as every body that changes something here.
 */
async function readBody<T>(
  request: Request,
  schema: z.ZodType<T>,
): Promise<{ ok: true; body: T } | { ok: false; response: Response }> {
  const raw = await readJsonBody(request, MAX_REPLAY_BODY, { emptyAs: null });
  if (raw !== null) {
    const json = guardJsonBody(request.headers.get('content-type'));
    if (!json.ok) return { ok: false, response: apiError(json.status, json.code, json.message) };
  }
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) return { ok: false, response: apiError(400, 'INVALID_REQUEST', zodMessage(parsed.error)) };
  return { ok: true, body: parsed.data };
}

/** The one-off fault of a body, or the 400 naming its field; undefined when there is none. */
function faultOf(value: unknown): { ok: true; fault?: ReplayFault } | { ok: false; response: Response } {
  if (value === undefined || value === null) return { ok: true };
  const parsed = parseFaultSpec(value);
  return parsed.ok
    ? { ok: true, fault: { spec: parsed.spec, json: parsed.json } }
    : { ok: false, response: invalid('INVALID_REQUEST', parsed.issues) };
}

const tooLong = (id: string) => id.length > 256;

/**
 * `POST /api/v1/traces/:id/replay` with an optional body `{ "arguments"?, "fault"?, "wait"? }`:
 * runs the call again as a new trace through the whole pipeline (validation, permission — a
 * side-effectful call waits for approval again —, faults, retries), in the same session, as actor
 * `replay`, recorded as a replay of `:id`. Its arguments are the sealed ones as the model sent
 * them, or `arguments` with masked values kept as recorded. 200 with the new call's entry of
 * `results`, exactly as `POST /api/v1/tool-calls` gives it (and waits, `wait: false` included);
 * 404 for an unknown trace; 400 naming the field of a bad body, fault or arguments.
 */
export function replayTrace(request: Request, id: string, ts: Toolscope): Promise<Response> {
  return handle(async () => {
    const read = await readBody(request, traceReplayBody);
    if (!read.ok) return read.response;
    const fault = faultOf(read.body.fault);
    if (!fault.ok) return fault.response;
    if (!tooLong(id) && ts.store.get(id)?.imported) return importedTraceError(id);
    const planned = tooLong(id)
      ? ({ ok: false, reason: 'not_found' } as const)
      : planReplay(ts.store, id, { arguments: read.body.arguments, fault: fault.fault });
    if (!planned.ok) {
      if (planned.reason === 'not_found') return apiError(404, 'NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);
      return invalid('INVALID_ARGUMENTS', planned.issues, planned.message);
    }
    const [answer] = await answerCalls(ts, {
      calls: [planned.plan.call],
      ctx: { ...planned.plan.ctx, signal: request.signal },
      wait: read.body.wait,
    });
    return Response.json(answer?.result, { headers: { 'cache-control': 'no-store' } });
  });
}

/**
 * `POST /api/v1/sessions/:id/replay` with an optional body `{ "fault"?, "wait"? }`: every call of
 * the session again, in the order they began, into a new session (actor `replay`, each a replay
 * of its original). Calls that ran in one batch run again in one batch (a new shared batch id);
 * batches run one after the other, each answered as `POST /api/v1/tool-calls` answers (a call
 * still awaiting approval when its batch stops waiting is reported so, and the next batch goes
 * on). 200 `{ "session_id", "results" }` with results in the recorded order; 404 when the
 * session has no calls.
 */
export function replaySession(request: Request, sessionId: string, ts: Toolscope): Promise<Response> {
  return handle(async () => {
    const read = await readBody(request, sessionReplayBody);
    if (!read.ok) return read.response;
    const fault = faultOf(read.body.fault);
    if (!fault.ok) return fault.response;
    let plan: ReturnType<typeof planSessionReplay>;
    try {
      plan = tooLong(sessionId) ? null : planSessionReplay(ts.store, sessionId);
    } catch (error) {
      if (isSessionTooLargeError(error)) return apiError(400, 'SESSION_TOO_LARGE', `${error.message}.`);
      throw error;
    }
    if (!plan) {
      // An imported session has calls, but none that can run again.
      const first = tooLong(sessionId) ? undefined : ts.store.list({ sessionId, limit: 1 }).items[0];
      if (first?.imported) {
        return apiError(409, 'IMPORTED_TRACE', `The session ${sessionId} was imported: it is read-only here.`);
      }
      return apiError(404, 'NOT_FOUND', `No calls in session "${sessionId.slice(0, 256)}".`);
    }
    const results = new Array<Record<string, unknown>>(plan.size);
    const execute = plan.execute(ts.executor.execute);
    for (const batch of plan.batches) {
      const ctx = {
        sessionId: plan.sessionId,
        actor: REPLAY_ACTOR,
        signal: request.signal,
        ...replayFaultContext(fault.fault),
      };
      const answers = await answerCalls(ts, { calls: batch.calls, ctx, execute, wait: read.body.wait });
      answers.forEach((answer, index) => {
        results[batch.positions[index] as number] = answer.result;
      });
    }
    return Response.json({ session_id: plan.sessionId, results }, { headers: { 'cache-control': 'no-store' } });
  });
}

/**
 * `GET /api/v1/sessions/:id/compare/:other`: each call of session `:id` beside its counterpart
 * in `:other` (its replay by `replay_of`, else by position), with whether the outcome (status,
 * error code) or the output (output, stdout, stderr, exit code) changed, and the compare page of
 * the pair. 404 when either session has no calls.
 */
export function getSessionComparison(sessionId: string, otherId: string, ts: Toolscope): Promise<Response> {
  return handle(() => {
    let pairs: ReturnType<typeof compareSessions>;
    try {
      pairs = tooLong(sessionId) || tooLong(otherId) ? null : compareSessions(ts.store, sessionId, otherId);
    } catch (error) {
      if (isSessionTooLargeError(error)) return apiError(400, 'SESSION_TOO_LARGE', `${error.message}.`);
      throw error;
    }
    if (!pairs) {
      return apiError(
        404,
        'NOT_FOUND',
        `No calls to compare: session "${sessionId.slice(0, 256)}" or "${otherId.slice(0, 256)}" has none.`,
      );
    }
    return Response.json(
      {
        session_id: sessionId,
        other_session_id: otherId,
        pairs: pairs.map((pair) => ({
          original: pair.original && summaryJson(pair.original),
          replay: pair.replay && summaryJson(pair.replay),
          outcome_changed: pair.outcomeChanged,
          output_changed: pair.outputChanged,
          compare_url:
            pair.original && pair.replay
              ? `/traces/${encodeURIComponent(pair.original.id)}/compare/${encodeURIComponent(pair.replay.id)}`
              : null,
        })),
      },
      { headers: { 'cache-control': 'no-store' } },
    );
  });
}

/**
 * `GET /api/v1/traces/:id/compare/:other`: both traces as `GET /api/v1/traces/:id` gives them
 * (`trace`, `other`), and which of their parts differ (`changes`). 404 when either is unknown.
 */
export function getTraceComparison(id: string, otherId: string, ts: Toolscope): Promise<Response> {
  return handle(() => {
    const trace = tooLong(id) ? null : ts.store.get(id);
    const other = tooLong(otherId) ? null : ts.store.get(otherId);
    if (!trace || !other) {
      const missing = trace ? otherId : id;
      return apiError(404, 'NOT_FOUND', `No trace with id "${missing.slice(0, 256)}".`);
    }
    const changes = compareCalls(trace, other);
    return Response.json(
      {
        trace: { ...traceJson(trace), replays: ts.store.replays(id) },
        other: { ...traceJson(other), replays: ts.store.replays(otherId) },
        changes: {
          outcome: changes.outcome,
          output: changes.output,
          arguments: changes.arguments,
          status: changes.status,
          error: changes.error,
          stdout: changes.stdout,
          stderr: changes.stderr,
          exit_code: changes.exitCode,
          attempts: changes.attempts,
          /** The other's latency minus this one's; null while either runs. */
          latency_ms_delta:
            trace.latencyMs === null || other.latencyMs === null
              ? null
              : Math.round((other.latencyMs - trace.latencyMs) * 1000) / 1000,
        },
      },
      { headers: { 'cache-control': 'no-store' } },
    );
  });
}
