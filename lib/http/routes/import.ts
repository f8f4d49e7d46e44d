import { IMPORT_MAX_BYTES } from '../../api/export-import';
import { importExportBytes } from '../../api/import-file';
import { ApiError } from '../../errors';
import { serverRedactor } from '../../server/server-redactor';
import { audit } from '../audit';
import { json } from '../respond';
import { defineRoutes } from '../route';

/** Whether a body is empty or only JSON whitespace. */
function isBlank(body: Buffer): boolean {
  for (const byte of body) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  return true;
}

export default defineRoutes([
  {
    /**
     * `POST /api/v1/import` with an export file as the JSON body (at most IMPORT_MAX_BYTES, 413
     * beyond): 201 `{ kind, session_id, renamed_from, trace_ids, imported }` — `session_id` is
     * where the calls are here: a session of their own (`<id>@import-<hash>`, `renamed_from` the
     * file's id) when one here already had the file's id; 400 `INVALID_JSON`, 400
     * `INVALID_IMPORT` naming the first bad path (all of them, up to IMPORT_MAX_ERRORS, in
     * `details.errors`), 400 `UNSUPPORTED_VERSION`, 409 `ALREADY_EXISTS` naming the trace id,
     * 429 while MAX_WAITING_IMPORTS others wait. The file is parsed, checked, redacted with the
     * server's redactor and written a piece at a time, other requests answered in between; it
     * is stored whole or not at all, also when the server stops midway.
     */
    method: 'POST',
    path: '/api/v1/import',
    action: 'calls.import',
    body: 'json',
    maxBodyBytes: IMPORT_MAX_BYTES,
    ownBodyLimit: true,
    async handle(c, ts) {
      const body = c.get('body');
      // Said of the file, not of a request body: a person dropped it.
      if (body === null || isBlank(body)) throw new ApiError('INVALID_JSON', 'The file is empty; send a JSON object.');
      const result = await importExportBytes(body, {
        store: ts.store,
        redactor: serverRedactor(ts.config),
      });
      if (!result.ok) throw new ApiError(result.refusal.code, result.refusal.message, result.refusal.details);
      audit(c, ts, 'calls.imported', result.answer.session_id, {
        kind: result.answer.kind,
        imported: result.answer.imported,
        renamed_from: result.answer.renamed_from,
        trace_ids: result.answer.trace_ids.slice(0, 100),
      });
      return json(c, result.answer, 201);
    },
  },
]);
