import { z } from 'zod';
import { parseWith, queryOf } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

const auditQuery = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,16}$/, 'a cursor from next_cursor')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  kind: z
    .string()
    .max(64)
    .optional()
    .transform((v) => v || undefined),
  principal: z
    .string()
    .max(256)
    .optional()
    .transform((v) => v || undefined),
  target: z
    .string()
    .max(256)
    .optional()
    .transform((v) => v || undefined),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export default defineRoutes([
  {
    /**
     * `GET /api/v1/audit?cursor=&kind=&principal=&target=&limit=`: the audit trail, newest first:
     * `{ "entries": [{ "seq", "at", "principal", "kind", "target", "detail", "address", "hash" }], "next_cursor" }`.
     */
    method: 'GET',
    path: '/api/v1/audit',
    action: 'audit.read',
    handle(c, ts) {
      const query = parseWith(auditQuery, queryOf(c), 'INVALID_QUERY');
      return json(c, ts.access.audit.list(query));
    },
  },
  {
    /** `GET /api/v1/audit/verify`: walks the hash chain; `{ "ok", "entries", "first_bad_seq" }`. */
    method: 'GET',
    path: '/api/v1/audit/verify',
    action: 'audit.read',
    handle: (c, ts) => json(c, ts.access.audit.verify()),
  },
]);
