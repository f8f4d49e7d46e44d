import { NOT_REACHABLE } from './unreachable';

/** The outcome of a list action, as a sentence for the status line. */
export interface ActionOutcome {
  ok: boolean;
  message: string;
}

async function apiMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {
    // not JSON: fall back to the status
  }
  return `HTTP ${response.status}`;
}

/** The answer, or NOT_REACHABLE when none came. */
async function send(url: string, init: RequestInit): Promise<Response | string> {
  try {
    return await fetch(url, init);
  } catch {
    return NOT_REACHABLE;
  }
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** Cancels a running or waiting call (`POST /api/v1/traces/:id/cancel`). */
export async function cancelTrace(id: string): Promise<ActionOutcome> {
  const response = await send(`/api/v1/traces/${encodeURIComponent(id)}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({}),
  });
  if (typeof response === 'string') return { ok: false, message: `Not cancelled — ${response}.` };
  if (response.ok) return { ok: true, message: 'Cancel requested; the call ends as cancelled.' };
  if (response.status === 409) return { ok: false, message: 'Not cancelled: the call had already finished.' };
  return { ok: false, message: `Could not cancel: ${await apiMessage(response)}` };
}

/** Deletes one finished call (`DELETE /api/v1/traces/:id`). */
export async function deleteTrace(id: string): Promise<ActionOutcome> {
  const response = await send(`/api/v1/traces/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (typeof response === 'string') return { ok: false, message: `Not deleted — ${response}.` };
  if (response.ok) return { ok: true, message: 'Deleted 1 call.' };
  if (response.status === 409)
    return { ok: false, message: 'Not deleted: the call is still running. Cancel it first.' };
  return { ok: false, message: `Could not delete: ${await apiMessage(response)}` };
}

/** Deletes every finished call of a session (`DELETE /api/v1/sessions/:id`); running ones are kept. */
export async function deleteSession(sessionId: string): Promise<ActionOutcome> {
  const response = await send(`/api/v1/sessions/${encodeURIComponent(sessionId)}`, { method: 'DELETE' });
  if (typeof response === 'string') return { ok: false, message: `Session not deleted — ${response}.` };
  if (!response.ok) return { ok: false, message: `Could not delete the session: ${await apiMessage(response)}` };
  const body = (await response.json().catch(() => ({}))) as { deleted?: number; skipped_running?: number };
  const deleted = body.deleted ?? 0;
  const skipped = body.skipped_running ?? 0;
  return {
    ok: true,
    message: `Deleted ${plural(deleted, 'call')} of session ${sessionId}${skipped ? `; kept ${plural(skipped, 'running call')}` : ''}.`,
  };
}
