import { z } from 'zod';
import type { TraceQuery } from '../db/trace-store';
import { CALL_STATUSES } from '../executor/types';

const optionalText = z
  .string()
  .max(256)
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/**
 * The filter parameters of the traces list, shared by `GET /api/v1/traces` and its export:
 * `tool`, `status`, `session`, `q` (search text), `from` and `to` (epoch ms), `faulted`
 * (`true`: only fault-injected calls; `false`: only the others). Empty values mean "no filter",
 * as a blank form field would.
 */
export const traceFilterParams = z.object({
  tool: optionalText,
  status: z
    .enum(CALL_STATUSES)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  session: optionalText,
  q: z.string().max(256).optional(),
  from: z.coerce.number().int().nonnegative().optional(),
  to: z.coerce.number().int().nonnegative().optional(),
  faulted: z
    .enum(['true', 'false', ''])
    .optional()
    .transform((v) => (v === 'true' ? true : v === 'false' ? false : undefined)),
});

/** The store query for parsed filter parameters. */
export function toTraceQuery(params: z.infer<typeof traceFilterParams>): TraceQuery {
  return {
    tool: params.tool,
    status: params.status,
    sessionId: params.session,
    text: params.q || undefined,
    from: params.from,
    to: params.to,
    faulted: params.faulted,
  };
}
