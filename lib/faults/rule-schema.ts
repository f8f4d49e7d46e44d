import { z } from 'zod';
import type { FaultKind, FaultSpec } from '../executor/types';
import { MAX_SEED } from './prng';

export const FAULT_KINDS = [
  'latency',
  'timeout',
  'error',
  'fail_first',
  'corrupt_output',
  'exit_code',
  'rate_limit',
] as const satisfies readonly FaultKind[];

/** Longest injected delay, retry-after or similar wait: an hour. */
const MAX_WAIT_MS = 60 * 60_000;

const ms = z.number().int().min(0).max(MAX_WAIT_MS);

/** `params` of each kind, as the API takes them (snake_case); unknown keys are refused. */
const PARAMS = {
  latency: z.object({ ms, jitter_ms: ms.optional() }).strict(),
  timeout: z.object({}).strict(),
  error: z
    .object({
      code: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .regex(/^[A-Za-z0-9_.-]+$/, 'use letters, digits, _ . or -'),
      message: z.string().max(2000).optional(),
      retryable: z.boolean().optional(),
    })
    .strict(),
  fail_first: z.object({ n: z.number().int().min(1).max(100) }).strict(),
  corrupt_output: z
    .object({ mode: z.enum(['replace', 'truncate', 'invalid_json']), value: z.unknown().optional() })
    .strict(),
  exit_code: z
    .object({
      code: z.number().int().min(1).max(255),
      stderr: z.string().max(100_000).optional(),
    })
    .strict(),
  rate_limit: z.object({ retry_after_ms: ms }).strict(),
} satisfies Record<FaultKind, z.ZodType>;

/** A kind's params in the API's form (what is stored and answered). */
export type FaultParams = Record<string, unknown>;

/** A one-off fault as the API takes it, checked: `{ kind, params }`. */
export interface OneOffFaultJson {
  kind: FaultKind;
  params: FaultParams;
}

/** The executor's form of a kind and its (already checked) API params. */
export function faultSpecOf(kind: FaultKind, params: FaultParams): FaultSpec {
  type Of<K extends FaultKind> = z.infer<(typeof PARAMS)[K]>;
  switch (kind) {
    case 'latency': {
      const p = params as Of<'latency'>;
      return p.jitter_ms === undefined ? { kind, ms: p.ms } : { kind, ms: p.ms, jitterMs: p.jitter_ms };
    }
    case 'timeout':
      return { kind };
    case 'error': {
      const p = params as Of<'error'>;
      return {
        kind,
        code: p.code,
        ...(p.message === undefined ? {} : { message: p.message }),
        ...(p.retryable === undefined ? {} : { retryable: p.retryable }),
      };
    }
    case 'fail_first':
      return { kind, n: (params as Of<'fail_first'>).n };
    case 'corrupt_output': {
      const p = params as Of<'corrupt_output'>;
      return { kind, mode: p.mode, ...(p.value === undefined ? {} : { value: p.value }) };
    }
    case 'exit_code': {
      const p = params as Of<'exit_code'>;
      return { kind, code: p.code, ...(p.stderr === undefined ? {} : { stderr: p.stderr }) };
    }
    case 'rate_limit':
      return { kind, retryAfterMs: (params as Of<'rate_limit'>).retry_after_ms };
  }
}

/** A field that is wrong, named as the API names it (`params.n`, `probability`). */
export interface FaultRuleIssue {
  path: string;
  message: string;
}

/** A rule refused, one issue per bad field. Recognise it with `isFaultRuleError` (by code). */
export class FaultRuleError extends Error {
  override readonly name = 'FaultRuleError';
  readonly code = 'INVALID_FAULT_RULE';
  constructor(readonly issues: FaultRuleIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  }
}

export function isFaultRuleError(error: unknown): error is FaultRuleError {
  return error instanceof Error && (error as Partial<FaultRuleError>).code === 'INVALID_FAULT_RULE';
}

/** `expires_at`: an ISO date-time or epoch milliseconds, read as epoch ms; null for never. */
const expiresAt = z.union([z.number(), z.string(), z.null()]).transform((value, ctx) => {
  if (value === null) return null;
  const epoch = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isSafeInteger(epoch) || epoch < 0) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time or epoch milliseconds' });
    return z.NEVER;
  }
  return epoch;
});

const fields = {
  name: z.string().trim().min(1, 'must not be empty').max(200),
  tool: z.string().trim().min(1, 'must name a tool or a glob over tool names').max(200),
  session_id: z.string().trim().min(1, 'must not be empty (send null for every session)').max(256).nullable(),
  kind: z.enum(FAULT_KINDS),
  params: z.record(z.string(), z.unknown()),
  probability: z.number().min(0).max(1),
  seed: z.number().int().min(0).max(MAX_SEED),
  max_hits: z.number().int().min(1).nullable(),
  expires_at: expiresAt,
  enabled: z.boolean(),
};

const createBody = z
  .object({
    name: fields.name,
    tool: fields.tool,
    kind: fields.kind,
    session_id: fields.session_id.optional(),
    params: fields.params.optional(),
    probability: fields.probability.optional(),
    seed: fields.seed.optional(),
    max_hits: fields.max_hits.optional(),
    expires_at: fields.expires_at.optional(),
    enabled: fields.enabled.optional(),
  })
  .strict();

const patchBody = z
  .object({
    name: fields.name.optional(),
    tool: fields.tool.optional(),
    kind: fields.kind.optional(),
    session_id: fields.session_id.optional(),
    params: fields.params.optional(),
    probability: fields.probability.optional(),
    seed: fields.seed.optional(),
    max_hits: fields.max_hits.optional(),
    expires_at: fields.expires_at.optional(),
    enabled: fields.enabled.optional(),
    hits: z.literal(0, 'may only be set to 0 (to reset the counter)').optional(),
  })
  .strict();

export type FaultRuleCreate = z.infer<typeof createBody> & { params: FaultParams };
export type FaultRulePatch = z.infer<typeof patchBody>;

function pathOf(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter(Boolean).join('.');
}

function issuesOf(error: z.ZodError, prefix = ''): FaultRuleIssue[] {
  return error.issues.flatMap((issue) => {
    // An unknown key is named as the field it is.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: pathOf(prefix, [...issue.path, key]), message: 'unknown field' }));
    }
    return [{ path: pathOf(prefix, issue.path) || prefix || 'body', message: issue.message }];
  });
}

/** Checks `params` for `kind`: the API params as stored, or the issues (`params.n`). */
export function checkParams(kind: FaultKind, params: unknown): FaultParams | FaultRuleIssue[] {
  const parsed = PARAMS[kind].safeParse(params ?? {});
  return parsed.success ? (parsed.data as FaultParams) : issuesOf(parsed.error, 'params');
}

function notObject(body: unknown): FaultRuleIssue[] | null {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? null
    : [{ path: 'body', message: 'must be a JSON object' }];
}

/** A new rule's fields from the API body; throws `FaultRuleError` naming every bad field. */
export function parseCreate(body: unknown): FaultRuleCreate {
  const wrong = notObject(body);
  if (wrong) throw new FaultRuleError(wrong);
  const parsed = createBody.safeParse(body);
  if (!parsed.success) throw new FaultRuleError(issuesOf(parsed.error));
  const params = checkParams(parsed.data.kind, parsed.data.params);
  if (Array.isArray(params)) throw new FaultRuleError(params);
  return { ...parsed.data, params };
}

/**
 * A change to a rule of kind `kind` with params `params` from the API body; throws
 * `FaultRuleError`. Params are checked against the kind the rule will have; changing the kind
 * without sending params checks empty params against it, so a kind that needs some names them.
 */
export function parsePatch(
  body: unknown,
  current: { kind: FaultKind; params: FaultParams },
): FaultRulePatch & { params?: FaultParams } {
  const wrong = notObject(body);
  if (wrong) throw new FaultRuleError(wrong);
  const parsed = patchBody.safeParse(body);
  if (!parsed.success) throw new FaultRuleError(issuesOf(parsed.error));
  const patch = parsed.data;
  if (patch.kind === undefined && patch.params === undefined) return patch;
  const kind = patch.kind ?? current.kind;
  const params = checkParams(kind, patch.params ?? (kind === current.kind ? current.params : {}));
  if (Array.isArray(params)) throw new FaultRuleError(params);
  return { ...patch, params };
}

const oneOffBody = z.object({ kind: fields.kind, params: fields.params.optional() }).strict();

/**
 * A one-off fault as the replay API takes it, `{ "kind", "params"? }` (params snake_case, as for
 * rules): the executor's `FaultSpec` for `ExecutionContext.fault`, or the issues, each named
 * under `prefix` (`fault.kind`, `fault.params.n`).
 * @example parseFaultSpec({ kind: 'fail_first', params: { n: 2 } }) // { ok: true, spec: { kind: 'fail_first', n: 2 }, json: { kind: 'fail_first', params: { n: 2 } } }
 */
export function parseFaultSpec(
  value: unknown,
  prefix = 'fault',
): { ok: true; spec: FaultSpec; json: OneOffFaultJson } | { ok: false; issues: FaultRuleIssue[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ path: prefix, message: 'must be an object { "kind", "params"? }' }] };
  }
  const parsed = oneOffBody.safeParse(value);
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error, prefix) };
  const params = checkParams(parsed.data.kind, parsed.data.params);
  if (Array.isArray(params)) {
    return { ok: false, issues: params.map((issue) => ({ ...issue, path: `${prefix}.${issue.path}` })) };
  }
  return { ok: true, spec: faultSpecOf(parsed.data.kind, params), json: { kind: parsed.data.kind, params } };
}
