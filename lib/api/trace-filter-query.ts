import { z } from 'zod';
import type { TraceQuery } from '../db/trace-store';
import { CALL_STATUSES } from '../executor/types';

const optionalText = z
  .string()
  .max(256)
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** The longest search text (`q`) the lists take, in UTF-16 code units; longer is a 400. */
export const MAX_SEARCH_CHARS = 256;

/**
 * A search text (`q` of the traces list, its export and the sessions list): at most
 * MAX_SEARCH_CHARS, and no NUL or lone surrogate, which no stored text holds and SQLite cannot
 * search for (400 naming `q`). Quotes, FTS5 operators and the like are searched as text.
 */
export const searchTextParam = z
  .string()
  .max(MAX_SEARCH_CHARS)
  .refine((text) => !text.includes('\u0000'), { message: 'a search text may not hold NUL (U+0000)' })
  .refine((text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed(), {
    message: 'a search text may not hold a lone surrogate (U+D800–U+DFFF)',
  });

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
  q: searchTextParam.optional(),
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
