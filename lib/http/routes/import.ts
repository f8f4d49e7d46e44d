import { IMPORT_MAX_BYTES, importExportFile } from '../../api/export-import';
import { ApiError, isApiError } from '../../errors';
import { audit } from '../audit';
import { jsonBody } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

export default defineRoutes([
  {
    /**
     * `POST /api/v1/import` with an export file as the JSON body (at most IMPORT_MAX_BYTES, 413
     * beyond): 201 `{ kind, session_id, renamed_from, trace_ids, imported }` — `session_id` is
     * where the calls are here: a session of their own (`<id>@import-<hash>`, `renamed_from` the
     * file's id) when one here already had the file's id; 400 `INVALID_IMPORT` naming the
     * first bad path (all of them, up to IMPORT_MAX_ERRORS, in `details.errors`), 400
     * `UNSUPPORTED_VERSION`, 409 `ALREADY_EXISTS` naming the trace id.
     */
    method: 'POST',
    path: '/api/v1/import',
    action: 'calls.import',
    body: 'json',
    maxBodyBytes: IMPORT_MAX_BYTES,
    ownBodyLimit: true,
    handle(c, ts) {
      let body: unknown;
      try {
        body = jsonBody(c);
      } catch (error) {
        // Said of the file, not of a request body: a person dropped it.
        if (isApiError(error) && error.code === 'INVALID_JSON') {
          throw new ApiError('INVALID_JSON', error.message.replace('The request body is', 'The file is'));
        }
        throw error;
      }
      const result = importExportFile(body, ts.store);
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
