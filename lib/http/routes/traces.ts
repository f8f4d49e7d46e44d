import { z } from 'zod';
import { principalRef } from '../../access/principal';
import { traceExport } from '../../api/export-import';
import { EXPORT_PAGE_SIZE, traceLines } from '../../api/export-traces';
import { summaryJson, traceJson } from '../../api/serialize';
import { findTrace, traceDetailJson } from '../../api/trace-detail';
import { toTraceQuery, traceFilterParams } from '../../api/trace-filter-query';
import { isInvalidCursorError } from '../../db/trace-store';
import { ApiError } from '../../errors';
import { compareCalls } from '../../replay/compare-calls';
import { configuredIgnoreRules } from '../../replay/volatile-paths';
import type { Toolscope } from '../../server/create-toolscope';
import { attachment } from '../attachment';
import { audit } from '../audit';
import type { HttpContext } from '../env';
import { optionalJsonBody, paramOf, parseWith, queryOf } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';
import { replayOne } from './replay';

const listQuery = traceFilterParams.extend({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z
    .string()
    .max(256)
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
});

const cancelBody = z
  .object({
    by: z.string().trim().min(1).max(64).optional(),
    reason: z.string().trim().min(1).max(1000).optional(),
  })
  .strict();

const notFound = (id: string) => new ApiError('NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);

/**
 * The trace `:id` names, or 404 — also when the principal may read only its own calls (an agent)
 * and this one is another's: it is not told that the call exists.
 */
function traceOf(c: HttpContext, ts: Toolscope, id: string) {
  const trace = findTrace(ts, id);
  if (!trace || !mayRead(c, trace.principal)) throw notFound(id);
  return trace;
}

/** Whether the request may read a call made by `principal` (an agent reads only its own). */
function mayRead(c: HttpContext, principal: { id: string } | null): boolean {
  return c.get('reach') !== 'own' || principal?.id === c.get('principal').id;
}

/** The filter of a list an agent reads: its own calls only. */
function ownOnly(c: HttpContext): { principalId?: string } {
  return c.get('reach') === 'own' ? { principalId: c.get('principal').id } : {};
}

/** The 409 for an action on an imported trace: it is a record of another Toolscope's call, read-only. */
export function importedTraceError(id: string): ApiError {
  return new ApiError(
    'IMPORTED_TRACE',
    `The trace ${id} was imported: it is read-only here (it has no arguments to run again and nothing running to cancel).`,
  );
}

export default defineRoutes([
  {
    /** `GET /api/v1/traces?tool=&status=&session=&q=&from=&to=&limit=&cursor=`: newest first, keyset-paginated. */
    method: 'GET',
    path: '/api/v1/traces',
    action: 'calls.read',
    handle(c, ts) {
      const q = parseWith(listQuery, queryOf(c), 'INVALID_QUERY');
      try {
        const page = ts.store.list({ ...toTraceQuery(q), ...ownOnly(c), limit: q.limit, cursor: q.cursor });
        return json(c, {
          items: page.items.map(summaryJson),
          next_cursor: page.nextCursor,
          // The scan window ended before the page filled: older matches may follow next_cursor.
          partial: page.partial,
          // Exact when the store knows it without counting (no filter, or a tool filter alone), else null.
          total: page.total,
        });
      } catch (error) {
        if (isInvalidCursorError(error)) throw new ApiError('INVALID_CURSOR', error.message);
        throw error;
      }
    },
  },
  {
    /**
     * `GET /api/v1/traces/export?<the list's filters>`: every matching call, newest first, as JSON
     * Lines — one redacted trace per line, in the shape of `GET /api/v1/traces/:id`, streamed.
     */
    method: 'GET',
    path: '/api/v1/traces/export',
    action: 'calls.read',
    handle(c, ts) {
      const filters = parseWith(traceFilterParams, queryOf(c), 'INVALID_QUERY');
      const date = new Date().toISOString().slice(0, 10);
      return new Response(traceLines(ts.store, { ...toTraceQuery(filters), ...ownOnly(c) }, EXPORT_PAGE_SIZE), {
        headers: {
          'content-type': 'application/x-ndjson; charset=utf-8',
          'content-disposition': `attachment; filename="toolscope-traces-${date}.jsonl"`,
          'cache-control': 'no-store',
        },
      });
    },
  },
  {
    /**
     * `GET /api/v1/traces/:id`: the whole redacted trace plus `server_time`. A call still running is
     * answered from the executor's live snapshot (the stage and attempt in progress, output so far).
     */
    method: 'GET',
    path: '/api/v1/traces/:id',
    action: 'calls.read',
    handle(c, ts) {
      return json(c, traceDetailJson(ts, traceOf(c, ts, paramOf(c, 'id'))));
    },
  },
  {
    /**
     * `DELETE /api/v1/traces/:id`: deletes one call. 200 `{ "deleted": 1 }`; 404; 409
     * `STILL_RUNNING` for a call running or awaiting approval (cancel or decide it first).
     */
    method: 'DELETE',
    path: '/api/v1/traces/:id',
    action: 'calls.delete',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const outcome = id.length <= 256 ? ts.store.delete(id) : 'not_found';
      if (outcome === 'not_found') throw notFound(id);
      if (outcome === 'running') {
        throw new ApiError(
          'STILL_RUNNING',
          'The call is still running or awaiting approval; cancel it or decide it first.',
        );
      }
      audit(c, ts, 'trace.deleted', id);
      return json(c, { deleted: 1 });
    },
  },
  {
    /**
     * `POST /api/v1/traces/:id/cancel` with an optional body `{ "reason"? }`: aborts a running call
     * through its AbortSignal and answers once the call has been recorded as cancelled, with the
     * trace. Who cancelled is the request's principal; a `by` in the body (older clients named
     * themselves there) is read only as the reason when none is given. 404 unknown; 409
     * NOT_RUNNING when it already ended.
     */
    method: 'POST',
    path: '/api/v1/traces/:id/cancel',
    action: 'calls.cancel',
    body: 'optional-json',
    maxBodyBytes: 16 * 1024,
    async handle(c, ts) {
      const id = paramOf(c, 'id');
      const body = parseWith(cancelBody, optionalJsonBody(c) ?? {}, 'INVALID_REQUEST');
      const known = traceOf(c, ts, id);
      if (known.imported) throw importedTraceError(id);
      const principal = c.get('principal');
      const reason = body.reason ?? body.by;
      const pending = ts.executor.cancel(id, { by: principal.name, principal: principalRef(principal), reason });
      if (!pending) throw new ApiError('NOT_RUNNING', `The call ${id} is not running: it ended ${known.status}.`);
      audit(c, ts, 'trace.cancelled', id, { tool: known.tool, reason: reason ?? null });
      await pending;
      const trace = ts.store.get(id);
      if (!trace) throw new Error(`The cancelled call ${id} was not recorded.`);
      return json(c, traceDetailJson(ts, trace));
    },
  },
  {
    /** `GET /api/v1/traces/:id/export`: the trace as an export file (`kind: "trace"`), for a bug report. */
    method: 'GET',
    path: '/api/v1/traces/:id/export',
    action: 'calls.read',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      traceOf(c, ts, id);
      return attachment(traceExport(id, ts), id);
    },
  },
  {
    /** `POST /api/v1/traces/:id/replay` with an optional body `{ "arguments"?, "fault"?, "wait"? }`: see `replayOne`. */
    method: 'POST',
    path: '/api/v1/traces/:id/replay',
    action: 'calls.replay',
    body: 'optional-json',
    handle: replayOne,
  },
  {
    /**
     * `GET /api/v1/traces/:id/compare/:other`: both traces as `GET /api/v1/traces/:id` gives them
     * (`trace`, `other`), and which of their parts differ (`changes`: `pending` while either runs,
     * the output's differences at volatile paths in `ignored`, out of `output`). 404 when either is unknown.
     */
    method: 'GET',
    path: '/api/v1/traces/:id/compare/:other',
    action: 'calls.read',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const otherId = paramOf(c, 'other');
      const trace = id.length > 256 ? null : ts.store.get(id);
      const other = otherId.length > 256 ? null : ts.store.get(otherId);
      if (!trace || !mayRead(c, trace.principal)) throw notFound(id);
      if (!other || !mayRead(c, other.principal)) throw notFound(otherId);
      const changes = compareCalls(trace, other, configuredIgnoreRules(ts.config.compare.ignorePaths));
      return json(c, {
        trace: { ...traceJson(trace), replays: ts.store.replays(id) },
        other: { ...traceJson(other), replays: ts.store.replays(otherId) },
        changes: {
          pending: changes.pending,
          outcome: changes.outcome,
          output: changes.output,
          arguments: changes.arguments,
          status: changes.status,
          error: changes.error,
          stdout: changes.stdout,
          stderr: changes.stderr,
          exit_code: changes.exitCode,
          attempts: changes.attempts,
          ignored: changes.ignored.map((change) => ({ path: change.path, kind: change.kind, rule: change.rule })),
          /** The other's latency minus this one's; null while either runs. */
          latency_ms_delta:
            trace.latencyMs === null || other.latencyMs === null
              ? null
              : Math.round((other.latencyMs - trace.latencyMs) * 1000) / 1000,
        },
      });
    },
  },
]);
