import { z } from 'zod';
import type { FaultSpec } from '../executor/types';
import { checkParams, FAULT_KINDS, faultSpecOf } from '../faults/rule-schema';

/** A field of a request body that is wrong, named as the API names it (`fault.params.n`). */
export interface BodyIssue {
  path: string;
  message: string;
}

const faultBody = z
  .object({ kind: z.enum(FAULT_KINDS), params: z.record(z.string(), z.unknown()).optional() })
  .strict();

/**
 * The one-off fault of a replay, `{ "kind", "params"? }` with the params of a fault rule of that
 * kind (snake_case, checked as the rules' are), in the executor's form; or the issues, each named
 * from `fault`.
 * @example parseOneOffFault({ kind: 'fail_first', params: { n: 2 } }) // { ok: true, fault: { kind: 'fail_first', n: 2 } }
 */
export function parseOneOffFault(value: unknown): { ok: true; fault: FaultSpec } | { ok: false; issues: BodyIssue[] } {
  const parsed = faultBody.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) => ({ path: ['fault', ...issue.path, key].join('.'), message: 'unknown field' }))
          : [{ path: ['fault', ...issue.path].join('.'), message: issue.message }],
      ),
    };
  }
  const params = checkParams(parsed.data.kind, parsed.data.params);
  if (Array.isArray(params)) {
    return { ok: false, issues: params.map((issue) => ({ path: `fault.${issue.path}`, message: issue.message })) };
  }
  return { ok: true, fault: faultSpecOf(parsed.data.kind, params) };
}
