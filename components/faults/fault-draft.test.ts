import { describe, expect, it } from 'vitest';
import { isFaultRuleError, parseCreate, parsePatch } from '@/lib/faults/rule-schema';
import type { FaultRuleJson } from '@/lib/ui/faults';
import {
  createBody,
  draftFromRule,
  emptyDraft,
  errorsByField,
  type FaultDraft,
  failFirstWarning,
  paramsOf,
  patchBody,
} from './fault-draft';

const NOW = Date.parse('2026-11-30T05:00:00Z');

function rule(overrides: Partial<FaultRuleJson> = {}): FaultRuleJson {
  return {
    id: 'flt_0123456789abcdef',
    name: 'flaky http',
    enabled: true,
    tool: 'http_*',
    session_id: null,
    kind: 'fail_first',
    params: { n: 2 },
    probability: 1,
    seed: 12345,
    max_hits: null,
    hits: 3,
    expires_at: null,
    created_at: '2026-11-30T04:00:00.000Z',
    updated_at: '2026-11-30T04:00:00.000Z',
    active: true,
    ...overrides,
  };
}

/** The server's complaints about a body, as the API's 400 lists them. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (isFaultRuleError(error)) return error.issues;
    throw error;
  }
  throw new Error('the server accepted the body');
}

describe('the fault rule form', () => {
  it('makes the body of a new rule the server accepts, numbers read, blanks left out', () => {
    const draft: FaultDraft = {
      ...emptyDraft('calculator'),
      name: ' slow calc ',
      kind: 'latency',
      params: { latency: { ms: '130', jitter_ms: '' }, fail_first: { n: '5' } },
      session: 'sess-1',
      probability: '0.5',
      seed: '42',
      maxHits: '10',
      expiry: '15m',
    };
    const body = createBody(draft, NOW);
    expect(body).toEqual({
      name: 'slow calc',
      tool: 'calculator',
      session_id: 'sess-1',
      kind: 'latency',
      params: { ms: 130 },
      probability: 0.5,
      seed: 42,
      max_hits: 10,
      expires_at: NOW + 15 * 60_000,
      enabled: true,
    });
    expect(parseCreate(body)).toMatchObject({ kind: 'latency', params: { ms: 130 }, expires_at: NOW + 15 * 60_000 });
  });

  it('gives every kind its own params: checkbox as boolean, select defaulted, JSON parsed or kept as text', () => {
    const base = emptyDraft('t');
    expect(paramsOf({ ...base, kind: 'error', params: { error: { code: 'E' } } })).toEqual({
      code: 'E',
      retryable: false,
    });
    expect(paramsOf({ ...base, kind: 'corrupt_output', params: {} })).toEqual({ mode: 'replace' });
    expect(
      paramsOf({ ...base, kind: 'corrupt_output', params: { corrupt_output: { mode: 'replace', value: '{"a":1}' } } }),
    ).toEqual({ mode: 'replace', value: { a: 1 } });
    expect(
      paramsOf({ ...base, kind: 'corrupt_output', params: { corrupt_output: { mode: 'replace', value: 'not json' } } }),
    ).toEqual({ mode: 'replace', value: 'not json' });
    expect(paramsOf({ ...base, kind: 'timeout' })).toEqual({});
    for (const [kind, params] of [
      ['error', { error: { code: 'E', retryable: true } }],
      ['corrupt_output', { corrupt_output: { mode: 'truncate' } }],
      ['exit_code', { exit_code: { code: '137', stderr: 'Killed' } }],
      ['rate_limit', { rate_limit: { retry_after_ms: '2000' } }],
      ['timeout', {}],
    ] as const) {
      const body = createBody({ ...base, name: 'x', kind, params }, NOW);
      expect(() => parseCreate(body), kind).not.toThrow();
    }
  });

  it('sends what is typed when it is not a number, so the server names the field', () => {
    const draft: FaultDraft = {
      ...emptyDraft('calculator'),
      name: '',
      params: { fail_first: { n: 'two' } },
      probability: '1.5',
    };
    const body = createBody(draft, NOW);
    expect(body.params).toEqual({ n: 'two' });
    const errors = errorsByField(
      refusal(() => parseCreate(body)),
      'fail_first',
    );
    expect(Object.keys(errors).sort()).toEqual(['name', 'probability']);
    // Fields fixed, the params are checked next, and their complaint lands at the param.
    const paramErrors = errorsByField(
      refusal(() => parseCreate({ ...body, name: 'x', probability: 1 })),
      'fail_first',
    );
    expect(Object.keys(paramErrors)).toEqual(['params.n']);
  });

  it("maps the server's paths to the form's fields, unknown ones to the form", () => {
    expect(
      errorsByField(
        [
          { path: 'session_id', message: 'must not be empty' },
          { path: 'max_hits', message: 'too small' },
          { path: 'expires_at', message: 'bad date' },
          { path: 'params.ms', message: 'required' },
          { path: 'params.bogus', message: 'unknown field' },
          { path: 'params', message: 'must be an object' },
          { path: 'hits', message: 'may only be set to 0' },
          { path: '', message: 'must be a JSON object' },
        ],
        'latency',
      ),
    ).toEqual({
      session: 'must not be empty',
      maxHits: 'too small',
      expiry: 'bad date',
      'params.ms': 'required',
      params: 'bogus: unknown field must be an object',
      other: 'hits: may only be set to 0 must be a JSON object',
    });
  });

  it('edits a rule by sending only what changed: an untouched seed keeps the draws, a kept expiry stays', () => {
    const existing = rule({ expires_at: '2026-11-30T06:00:00.000Z', max_hits: 5 });
    const draft = draftFromRule(existing);
    expect(draft).toMatchObject({ name: 'flaky http', seed: '12345', maxHits: '5', expiry: 'keep' });
    expect(patchBody(existing, draft, NOW)).toEqual({});
    expect(patchBody(existing, { ...draft, name: 'renamed', enabled: false }, NOW)).toEqual({
      name: 'renamed',
      enabled: false,
    });
    expect(patchBody(existing, { ...draft, params: { fail_first: { n: '3' } } }, NOW)).toEqual({ params: { n: 3 } });
    expect(patchBody(existing, { ...draft, seed: '7', expiry: 'never', maxHits: '' }, NOW)).toEqual({
      seed: 7,
      max_hits: null,
      expires_at: null,
    });
  });

  it('sends the new params whole when the kind changes, which the server checks against the new kind', () => {
    const existing = rule();
    const draft = { ...draftFromRule(existing), kind: 'latency' as const, params: { latency: { ms: '200' } } };
    const patch = patchBody(existing, draft, NOW);
    expect(patch).toEqual({ kind: 'latency', params: { ms: 200 } });
    expect(parsePatch(patch, { kind: existing.kind, params: existing.params })).toMatchObject({
      kind: 'latency',
      params: { ms: 200 },
    });
  });

  it('fills the form from a rule of any kind', () => {
    const draft = draftFromRule(
      rule({
        kind: 'corrupt_output',
        params: { mode: 'replace', value: { a: 1 } },
        session_id: 's',
        probability: 0.25,
      }),
    );
    expect(draft.params.corrupt_output).toEqual({ mode: 'replace', value: '{"a":1}' });
    expect(draft).toMatchObject({ session: 's', probability: '0.25', expiry: 'never' });
    expect(draftFromRule(rule({ kind: 'error', params: { code: 'E', retryable: true } })).params.error).toEqual({
      code: 'E',
      message: '',
      retryable: true,
    });
  });

  it('warns when a fail_first rule on a named tool leaves it no attempt to run', () => {
    const tools = [
      { name: 'calculator', maxAttempts: 1 },
      { name: 'http_request', maxAttempts: 3 },
    ];
    const draft = (tool: string, n: string) => ({
      ...emptyDraft(tool),
      kind: 'fail_first' as const,
      params: { fail_first: { n } },
    });
    expect(failFirstWarning(draft('calculator', '2'), tools)).toBe(
      'calculator makes at most 1 attempt per call: with n = 2 every call fails and the tool never runs. For retries that succeed, pick a tool with more attempts (n < its attempts).',
    );
    expect(failFirstWarning(draft('http_request', '3'), tools)).toContain('at most 3 attempts per call: with n = 3');
    expect(failFirstWarning(draft('http_request', '2'), tools)).toBeNull();
    // A glob, an unknown tool, a number not yet typed, another kind: nothing to say.
    expect(failFirstWarning(draft('calc*', '5'), tools)).toBeNull();
    expect(failFirstWarning(draft('nope', '5'), tools)).toBeNull();
    expect(failFirstWarning(draft('calculator', ''), tools)).toBeNull();
    expect(failFirstWarning({ ...draft('calculator', '2'), kind: 'latency' }, tools)).toBeNull();
  });
});
