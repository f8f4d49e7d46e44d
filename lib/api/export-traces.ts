import type { TraceQuery, TraceStore } from '../db/trace-store';
import { traceJson } from './serialize';

/** Summaries read per list page while exporting; only their ids are held. */
export const EXPORT_PAGE_SIZE = 200;

/**
 * Every call matching `query`, newest first, as JSON Lines: one redacted trace per line, in the
 * shape of `GET /api/v1/traces/:id` (never the sealed arguments).
 *
 * Streamed and pulled: each read of the body gets one trace, so memory holds one trace and one
 * page of ids however large the export, and a slow client slows the walk instead of queuing it.
 * The walk follows `nextCursor` through every page, past the scan window of a search, yielding
 * to the event loop between pages so calls are never held up by a long search.
 */
export function traceLines(
  store: TraceStore,
  query: TraceQuery,
  pageSize = EXPORT_PAGE_SIZE,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let ids: string[] = [];
  let next = 0;
  let cursor: string | undefined;
  let pages = 0;
  let exhausted = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const id = ids[next++];
            if (id !== undefined) {
              // Deleted since its page was read: skip it.
              const trace = store.get(id);
              if (!trace) continue;
              controller.enqueue(encoder.encode(`${JSON.stringify(traceJson(trace))}\n`));
              return;
            }
            if (exhausted) {
              controller.close();
              return;
            }
            if (pages++ > 0) await new Promise((resolve) => setImmediate(resolve));
            const page = store.list({ ...query, limit: pageSize, cursor });
            ids = page.items.map((item) => item.id);
            next = 0;
            cursor = page.nextCursor ?? undefined;
            exhausted = cursor === undefined;
          }
        } catch (error) {
          console.error('[toolscope] trace export failed:', error);
          controller.error(error);
        }
      },
      cancel() {
        exhausted = true;
        ids = [];
      },
    },
    { highWaterMark: 1 },
  );
}
