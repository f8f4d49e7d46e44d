import type { pendingApprovalJson } from '../api/approvals';
import { type FieldIssue, fieldIssuesOf } from './json-issues';
import { isUnreachableError, NOT_REACHABLE, UNREACHABLE } from './unreachable';

/** A pending call as `GET /api/v1/approvals` lists it. */
export type PendingApprovalJson = ReturnType<typeof pendingApprovalJson>;

/** The TanStack Query key of the approval queue, shared by the page, the nav badge and the trace page. */
export const APPROVALS_KEY = ['approvals'] as const;

/** The mutation key of decisions: while one is in flight, the queue is not refetched (it would bring the call back). */
export const DECIDE_KEY = ['approvals', 'decide'] as const;

/** The webhooks of `approvals.notify` (absent for agents): how many, what is pending, what failed lately. */
export interface NotifyStatus {
  targets: number;
  pending: number;
  failures: { target: string; type: string; trace_id: string; error: string; attempts: number; at: string }[];
}

/** The queue as the browser holds it: the calls, oldest first, and the server's clock skew. */
export interface ApprovalQueue {
  approvals: PendingApprovalJson[];
  notify?: NotifyStatus;
  /** Server clock minus browser clock (ms), from the answer's `Date` header; 0 within 2 s. */
  skewMs: number;
}

/** `GET /api/v1/approvals`. */
export async function fetchApprovals(): Promise<ApprovalQueue> {
  const response = await fetch('/api/v1/approvals', { cache: 'no-store' });
  if (!response.ok) throw new Error(`approvals: HTTP ${response.status}`);
  const body = (await response.json()) as { approvals: PendingApprovalJson[]; notify?: NotifyStatus };
  const date = Date.parse(response.headers.get('date') ?? '');
  // The header has 1 s resolution: only a real difference between the clocks is worth correcting.
  const skew = Number.isNaN(date) ? 0 : date - Date.now();
  return { approvals: body.approvals, notify: body.notify, skewMs: Math.abs(skew) > 2_000 ? skew : 0 };
}

/** The body of `POST /api/v1/approvals/:trace_id`. */
export type Decision =
  | { decision: 'approve'; arguments?: unknown; always?: { specifier?: string; session?: boolean } }
  | { decision: 'deny'; reason: string };

/** What the server answered once the decision was recorded. */
export interface DecisionResult {
  id: string;
  status?: string;
  rule_created: string | null;
}

/** A refused decision, by the API's error code: field issues for `INVALID_ARGUMENTS`. */
export interface DecisionError extends Error {
  code: string;
  status: number;
  issues: FieldIssue[];
}

function decisionError(status: number, code: string, message: string, issues: FieldIssue[]): DecisionError {
  return Object.assign(new Error(message), { code, status, issues });
}

/** Whether `error` is a refusal from the approvals API (matched on its shape, not `instanceof`). */
export function isDecisionError(error: unknown): error is DecisionError {
  return error instanceof Error && typeof (error as Partial<DecisionError>).code === 'string';
}

/**
 * `POST /api/v1/approvals/:trace_id`: resolves once the decision is recorded; rejects with a
 * `DecisionError` when the server refuses it (400 with field issues, 404, 409 already decided).
 */
export async function postDecision(traceId: string, decision: Decision): Promise<DecisionResult> {
  let response: Response;
  try {
    response = await fetch(`/api/v1/approvals/${encodeURIComponent(traceId)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(decision),
    });
  } catch (error) {
    throw Object.assign(decisionError(0, UNREACHABLE, NOT_REACHABLE, []), { cause: error });
  }
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; details?: { errors?: unknown } };
  } | null;
  if (!response.ok) {
    const error = body?.error;
    const issues = fieldIssuesOf({ issues: error?.details?.errors ?? [] });
    return Promise.reject(
      decisionError(
        response.status,
        error?.code ?? `HTTP_${response.status}`,
        error?.message ?? response.statusText,
        issues,
      ),
    );
  }
  return body as unknown as DecisionResult;
}

/**
 * A decision that failed, as the sentence the pages show: not sent (the server did not answer),
 * already decided or expired, or refused with the API's code.
 */
export function decisionFailureMessage(error: unknown): string {
  if (isUnreachableError(error)) return `Not decided — ${NOT_REACHABLE}.`;
  if (!isDecisionError(error)) return `Not decided: ${String(error)}`;
  if (error.code === 'NOT_PENDING') return `Not decided: ${error.message} Someone else decided it, or it expired.`;
  return `Refused (${error.code}): ${error.message}`;
}

/** Under this much time left (or a quarter of a shorter wait) an expiry countdown is urgent. */
const URGENT_MS = 60_000;

/**
 * Whether a countdown to `expiresAt`, for a wait that started at `requestedAt`, is near its end:
 * the last minute of a 10-minute wait, the last 5 s of a 20 s one.
 */
export function isUrgent(requestedAt: number, expiresAt: number, now: number): boolean {
  return expiresAt - now <= Math.min(URGENT_MS, (expiresAt - requestedAt) / 4);
}

/** Whether a specifier has a wildcard: a `*` not escaped by `\` (`w/\*` names the file `w/*`). */
export function hasWildcard(specifier: string): boolean {
  for (let i = 0; i < specifier.length; i++) {
    const char = specifier[i];
    if (char === '\\') i++;
    else if (char === '*') return true;
  }
  return false;
}

/** What an "always allow" rule will match, in words, for the form that makes it. */
export function alwaysMatchText(tool: string, specifier: string | null): string {
  if (specifier === null || specifier.trim() === '') return `every ${tool} call, whatever its arguments`;
  return hasWildcard(specifier)
    ? 'every call this pattern fits: each unescaped * stands for more than this call (the Policy page has the table)'
    : 'only calls with exactly this subject: nothing else';
}
