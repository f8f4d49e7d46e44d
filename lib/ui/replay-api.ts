import { type FieldIssue, fieldIssuesOf } from './json-issues';
import { NOT_REACHABLE } from './unreachable';

/** A one-off fault for one replay, as `POST /api/v1/traces/:id/replay` takes it. */
export interface ReplayFault {
  kind: string;
  params: Record<string, unknown>;
}

export interface ReplayRequest {
  /** Edited arguments (masked values kept as recorded by the server); absent: the sealed raw ones. */
  arguments?: unknown;
  fault?: ReplayFault;
}

export type ReplayOutcome =
  | { ok: true; traceId: string; status: string }
  | {
      ok: false;
      message: string;
      /** Issues on the arguments (paths inside them). */
      issues: FieldIssue[];
      /** Issues on the fault (paths such as `fault.params.ms`). */
      faultIssues: FieldIssue[];
    };

export type SessionReplayOutcome =
  | { ok: true; sessionId: string; calls: number }
  | { ok: false; message: string; notFound: boolean };

interface ApiError {
  error?: { code?: string; message?: string; details?: { issues?: unknown; errors?: unknown } };
}

async function post(url: string, body: unknown): Promise<Response | string> {
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    return NOT_REACHABLE;
  }
}

async function errorOf(response: Response): Promise<ApiError['error'] & { message: string }> {
  const body = (await response.json().catch(() => ({}))) as ApiError;
  return { ...body.error, message: body.error?.message ?? `HTTP ${response.status}` };
}

/**
 * Starts the replay of a recorded call (`POST /api/v1/traces/:id/replay`, `background: true`): the
 * answer comes as soon as it has begun — `running`, or `awaiting_approval` — however long it runs
 * (a slow fault), and the compare view follows it live. A refusal (400) comes back with its field
 * issues split into those of the arguments and those of the fault.
 */
export async function replayTrace(id: string, request: ReplayRequest): Promise<ReplayOutcome> {
  const response = await post(`/api/v1/traces/${encodeURIComponent(id)}/replay`, { ...request, background: true });
  if (typeof response === 'string')
    return { ok: false, message: `Could not replay: ${response}.`, issues: [], faultIssues: [] };
  if (!response.ok) {
    const error = await errorOf(response);
    const all = [...fieldIssuesOf(error.details), ...fieldIssuesOf({ issues: error.details?.errors })];
    const faultIssues = all.filter((issue) => issue.path === 'fault' || issue.path.startsWith('fault.'));
    const issues = all
      .filter((issue) => !faultIssues.includes(issue))
      .map((issue) => ({ ...issue, path: issue.path.replace(/^arguments\.?/, '') }));
    return { ok: false, message: `Could not replay: ${error.message}`, issues, faultIssues };
  }
  const body = (await response.json()) as { trace_id: string; status: string };
  return { ok: true, traceId: body.trace_id, status: body.status };
}

/** Replays every call of a session into a new one (`POST /api/v1/sessions/:id/replay`). */
export async function replaySession(id: string, fault?: ReplayFault): Promise<SessionReplayOutcome> {
  const response = await post(`/api/v1/sessions/${encodeURIComponent(id)}/replay`, {
    ...(fault ? { fault } : {}),
    wait: false,
  });
  if (typeof response === 'string')
    return { ok: false, message: `Could not replay the session: ${response}.`, notFound: false };
  if (!response.ok) {
    const error = await errorOf(response);
    return { ok: false, message: `Could not replay the session: ${error.message}`, notFound: response.status === 404 };
  }
  const body = (await response.json()) as { session_id: string; results: unknown[] };
  return { ok: true, sessionId: body.session_id, calls: body.results.length };
}
