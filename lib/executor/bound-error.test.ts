import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import type { StoredTrace } from '../db/trace-store';
import {
  boundDetails,
  boundError,
  CUT_DEEPER_DETAILS,
  DETAILS_CUT_KEY,
  MAX_DETAIL_STRING_CHARS,
  MAX_ERROR_DETAILS_CHARS,
  MAX_ERROR_DETAILS_DEPTH,
  MAX_ERROR_MESSAGE_CHARS,
} from './bound-error';
import { defineTool } from './define-tool';
import { errorData, ToolError } from './errors';
import { createExecutor } from './executor';
import { jsonSchemaInput } from './json-schema-input';
import { createRegistry } from './registry';
import type { ToolResult } from './types';

/** Where the head of a cut message ends (see `truncateMiddle`). */
const HEAD_CHARS = Math.ceil((MAX_ERROR_MESSAGE_CHARS - 64) * 0.7);
const SECRET = 'zq9-hidden-value-7731';

/** Fails with a message of `chars` characters, the call's `api_key` placed across the cut's head end. */
const loud = defineTool({
  name: 'loud',
  description: 'Fails with a huge message',
  sideEffect: 'none',
  inputSchema: z.object({ api_key: z.string(), chars: z.number().int() }),
  retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
  execute: ({ api_key, chars }) => {
    const head = 'a'.repeat(HEAD_CHARS - 5);
    throw ToolError.temporary('UPSTREAM_TOOL_ERROR', `${head}${api_key}${'b'.repeat(chars - head.length)}`);
  },
});

describe('boundError: message and hint', () => {
  it('keeps a message within the bound as it is, the same object', () => {
    const error = errorData('X', 'short');
    expect(boundError(error)).toBe(error);
    const exact = errorData('X', 'm'.repeat(MAX_ERROR_MESSAGE_CHARS));
    expect(boundError(exact)).toBe(exact);
  });

  it('cuts a longer message head and tail with a marker, keeping the rest of the error', () => {
    const error = errorData('X', `${'h'.repeat(5_000_000)}${'t'.repeat(10)}`, { details: { n: 1 }, hint: 'do this' });
    const bounded = boundError(error);
    expect(bounded.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(bounded.message).toMatch(/^h+\n…\[truncated \d+ of 5000010 characters\]…\nh+t{10}$/);
    expect(bounded).toMatchObject({ code: 'X', details: { n: 1 }, hint: 'do this' });
  });

  it('cuts a hint over the bound the same way', () => {
    const bounded = boundError(errorData('X', 'm', { hint: 'h'.repeat(100_000) }));
    expect(bounded.hint?.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(bounded.hint).toContain('[truncated ');
  });
});

/** The JSON size of a value: what the store and the API write of it. */
const jsonChars = (value: unknown) => JSON.stringify(value).length;

describe('boundError: details', () => {
  it('keeps details within the bounds as they are, the same object', () => {
    const error = errorData('X', 'm', { details: { issues: [{ path: 'a', message: 'Required', code: 'x' }] } });
    expect(boundError(error)).toBe(error);
  });

  it('keeps the first of 100,000 issues within about MAX_ERROR_DETAILS_CHARS, the rest counted where they were', () => {
    const issues = Array.from({ length: 100_000 }, (_, i) => ({
      path: `items.${i}`,
      message: 'Expected integer',
      code: 'invalid_type',
    }));
    const bounded = boundError(errorData('INVALID_ARGUMENTS', 'bad', { details: { issues, tool: 't' } }));
    const details = bounded.details as { issues: unknown[]; [key: string]: unknown };
    expect(jsonChars(details)).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
    expect(details.issues[0]).toEqual(issues[0]);
    const kept = details.issues.length - 1;
    expect(kept).toBeGreaterThan(100);
    expect(details.issues.at(-1)).toBe(`…[${100_000 - kept} more items not kept]`);
    expect(details['…']).toBe('[1 more key not kept]');
    expect(details[DETAILS_CUT_KEY]).toMatch(/^cut to about 16000 characters and 16 levels/);
  });

  it('cuts a 5 MB string of the details head and tail, marked', () => {
    const bounded = boundError(errorData('X', 'm', { details: { body: `${'a'.repeat(5_000_000)}zz`, status: 500 } }));
    const details = bounded.details as { body: string; status: number };
    expect(details.body).toMatch(/^a+\n…\[truncated \d+ of 5000002 characters\]…\na+zz$/);
    expect(details.body.length).toBeLessThanOrEqual(MAX_DETAIL_STRING_CHARS);
    expect(details.status).toBe(500);
    expect(jsonChars(details)).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
    expect(details).toHaveProperty(DETAILS_CUT_KEY);
  });

  it('cuts a megabyte key', () => {
    const key = `k${'e'.repeat(1_000_000)}y`;
    const bounded = boundError(errorData('X', 'm', { details: { [key]: 1 } }));
    expect(jsonChars(bounded.details)).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
    expect(Object.keys(bounded.details ?? {})[0]).toContain('[truncated ');
  });

  it('replaces what nests past MAX_ERROR_DETAILS_DEPTH (10,000 levels: no recursion) with a note', () => {
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 10_000; i++) deep = { next: deep };
    const bounded = boundError(errorData('X', 'm', { details: deep }));
    let node = bounded.details as Record<string, unknown>;
    let levels = 1;
    while (typeof node.next === 'object') {
      node = node.next as Record<string, unknown>;
      levels++;
    }
    expect(levels).toBe(MAX_ERROR_DETAILS_DEPTH);
    expect(node.next).toBe(CUT_DEEPER_DETAILS);
    expect(bounded.details).toHaveProperty(DETAILS_CUT_KEY);
  });

  it('is idempotent: bounding a bounded error again changes nothing', () => {
    const issues = Array.from({ length: 100_000 }, (_, i) => ({ path: `items.${i}`, message: 'Expected integer' }));
    let deep: Record<string, unknown> = { leaf: 'x'.repeat(100_000) };
    for (let i = 0; i < 100; i++) deep = { next: deep, [`k${i}`]: 'v'.repeat(3_000) };
    const once = boundError(errorData('X', 'm'.repeat(100_000), { details: { deep, issues } }));
    expect(boundError(once)).toBe(once);
  });

  it('ends on a cycle', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const bounded = boundError(errorData('X', 'm', { details: cyclic }));
    expect(jsonChars(bounded.details)).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
  });

  it('keeps an own __proto__ key as a key', () => {
    const details = JSON.parse(`{"__proto__": {"polluted": true}, "big": "${'b'.repeat(50_000)}"}`);
    const bounded = boundError(errorData('X', 'm', { details })).details as Record<string, unknown>;
    expect(Object.getPrototypeOf(bounded)).toBe(Object.prototype);
    expect(Object.hasOwn(bounded, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('hands scrub what is kept, whole strings and all, and cuts only what scrub returned', () => {
    const secret = 'zq9-hidden-details-secret-41';
    // The secret straddles where the head of the cut string ends (see `truncateMiddle`).
    const head = Math.ceil((MAX_DETAIL_STRING_CHARS - 64) * 0.7);
    const body = `${'a'.repeat(head - 5)}${secret}${'b'.repeat(5_000_000)}`;
    const issues = Array.from({ length: 200_000 }, (_, i) => ({ path: `x.${i}`, message: 'bad' }));
    let seen = 0;
    const bounded = boundError(errorData('X', 'm', { details: { body, issues } }), (error) => {
      seen = jsonChars(error.details);
      return JSON.parse(JSON.stringify(error).replaceAll(secret, '[REDACTED]'));
    });
    // The 5 MB string whole (so that the secret across the cut is scrubbed whole), not 200,000 issues.
    expect(seen).toBeGreaterThan(5_000_000);
    expect(seen).toBeLessThan(5_000_000 + 2 * MAX_ERROR_DETAILS_CHARS);
    const details = bounded.details as { body: string; issues: unknown[] };
    expect(details.body).toContain('[truncated ');
    expect(details.body).not.toContain(secret.slice(0, 4));
    expect(details.issues.length).toBeGreaterThan(10);
    expect(JSON.stringify(details).length).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
  });
});

describe('boundDetails', () => {
  it("bounds an API envelope's details of any shape", () => {
    expect(boundDetails(undefined)).toBeUndefined();
    expect(boundDetails({ errors: [] })).toEqual({ errors: [] });
    expect(boundDetails('s'.repeat(100_000)).length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    const array = boundDetails(Array.from({ length: 50_000 }, (_, i) => ({ path: `p${i}`, message: 'bad' })));
    expect(jsonChars(array)).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
    expect(array.at(-1)).toMatch(/^…\[\d+ more items not kept\]$/);
  });
});

describe('a tool failing with a 5 MB message', () => {
  it('leaves a bounded, scrubbed message in every attempt, the error, the stage and the model message', async () => {
    const store = createMemoryTraceStore();
    const executor = createExecutor({
      registry: createRegistry([loud]),
      sink: store,
      random: () => 0,
    });
    const result = await executor.execute({ name: 'loud', arguments: { api_key: SECRET, chars: 5_000_000 } });
    expect(result.error?.code).toBe('UPSTREAM_TOOL_ERROR');
    const record = store.get(result.traceId);
    expect(record?.attempts).toHaveLength(2);
    const texts = [
      result.error?.message ?? '',
      record?.error?.message ?? '',
      ...(record?.attempts ?? []).map((attempt) => attempt.error?.message ?? ''),
      record?.stages.find((stage) => stage.name === 'execute')?.detail ?? '',
    ];
    for (const text of texts) {
      expect(text).toContain('[truncated ');
      expect(text.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 1_000);
      // Scrubbed before the cut: the secret across the head's end was replaced whole.
      expect(text).not.toContain(SECRET.slice(0, 4));
    }
    expect(record?.modelMessage?.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 1_000);
  });
});

/** Every error text a call's record and result hold: each must be within its bound. */
function errorTexts(record: StoredTrace | null, result: ToolResult): { texts: string[]; details: unknown[] } {
  const texts = [
    result.error?.message ?? '',
    record?.error?.message ?? '',
    record?.modelMessage ?? '',
    ...(record?.attempts ?? []).map((attempt) => attempt.error?.message ?? ''),
    ...(record?.stages ?? []).map((stage) => stage.detail ?? ''),
  ];
  const details = [
    result.error?.details,
    record?.error?.details,
    ...(record?.attempts ?? []).map((a) => a.error?.details),
  ];
  return { texts, details };
}

function expectBounded(record: StoredTrace | null, result: ToolResult): void {
  const { texts, details } = errorTexts(record, result);
  for (const text of texts) expect(text.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 1_000);
  for (const detail of details)
    expect(JSON.stringify(detail ?? null).length).toBeLessThan(MAX_ERROR_DETAILS_CHARS + 1_000);
}

describe('calls failing with huge errors', () => {
  const strict = defineTool({
    name: 'strict',
    description: 'Takes numbers only',
    sideEffect: 'none',
    inputSchema: z.strictObject({ n: z.number(), items: z.array(z.number()) }),
    execute: () => 'ok',
  });
  const schemaTool = defineTool({
    name: 'schema_tool',
    description: 'Takes numbers only (JSON Schema)',
    sideEffect: 'none',
    inputSchema: jsonSchemaInput({
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'integer' } } },
      additionalProperties: false,
    }),
    execute: () => 'ok',
  });
  const refusing = defineTool({
    name: 'refusing',
    description: 'Its own check refuses with a huge message and details',
    sideEffect: 'none',
    inputSchema: z.object({ chars: z.number() }),
    checkPermission: ({ chars }) => ({
      check: 'test check',
      message: `refused: ${'r'.repeat(chars)}`,
      details: { echoed: 'e'.repeat(chars), list: Array.from({ length: 50_000 }, (_, i) => i) },
    }),
    execute: () => 'never',
  });
  const detailed = defineTool({
    name: 'detailed',
    description: 'Fails with huge details holding the call secret',
    sideEffect: 'none',
    inputSchema: z.object({ password: z.string() }),
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    execute: ({ password }) => {
      const head = Math.ceil((MAX_DETAIL_STRING_CHARS - 64) * 0.7);
      let deep: Record<string, unknown> = { bottom: password };
      for (let i = 0; i < 5_000; i++) deep = { next: deep };
      throw ToolError.temporary('UPSTREAM_TOOL_ERROR', 'failed', {
        details: {
          body: `${'a'.repeat(head - 5)}${password}${'b'.repeat(5_000_000)}`,
          deep,
          blocks: Array.from({ length: 100_000 }, (_, i) => ({ type: 'image', bytes: i })),
        },
      });
    },
  });
  const executor = () => {
    const store = createMemoryTraceStore();
    return {
      store,
      executor: createExecutor({
        registry: createRegistry([strict, schemaTool, refusing, detailed]),
        sink: store,
        random: () => 0,
      }),
    };
  };

  it('a validation error on a 1 MiB argument (a megabyte key) is bounded everywhere', async () => {
    const { store, executor: ex } = executor();
    const args = { n: 1, items: [], [`k${'e'.repeat(1 << 20)}`]: 1 };
    const result = await ex.execute({ name: 'strict', arguments: JSON.stringify(args) });
    expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENTS', stage: 'validate' });
    // The message quotes the key's head and tail.
    expect(result.error?.message).toMatch(/Unknown field "keee+\n…\[truncated \d+ of \d+ characters\]…\ne+"/);
    const details = result.error?.details as { issues: { path: string }[] };
    expect(details.issues[0]?.path).toContain('[truncated ');
    expectBounded(store.get(result.traceId), result);
  });

  it('a validation error listing 10,000 issues is bounded everywhere, the issues left out counted', async () => {
    const { store, executor: ex } = executor();
    const args = { n: 1, items: Array.from({ length: 10_000 }, () => 's') };
    const result = await ex.execute({ name: 'strict', arguments: args });
    expect(result.error?.message).toContain('(and 9990 more)');
    const details = result.error?.details as {
      issues: unknown[];
      issues_not_listed: number;
      [DETAILS_CUT_KEY]: string;
    };
    expect(details.issues_not_listed).toBe(9_800);
    expect(details.issues.at(-1)).toMatch(/^…\[\d+ more items not kept\]$/);
    expect(details[DETAILS_CUT_KEY]).toBeDefined();
    expectBounded(store.get(result.traceId), result);
  });

  for (const tool of ['strict', 'schema_tool']) {
    const kind = tool === 'strict' ? 'zod (through its JSON Schema)' : 'JSON Schema';
    it(`checks arguments over LARGE_ARGUMENTS_CHARS (${kind}) up to their first issue: 500,000 wrong items make no 500,000 issues`, async () => {
      const { store, executor: ex } = executor();
      const args = { ...(tool === 'strict' ? { n: 1 } : {}), items: Array.from({ length: 500_000 }, () => 's') };
      const result = await ex.execute({ name: tool, arguments: args });
      expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { checked: 'up to the first issue' } });
      expect(result.error?.message).toMatch(
        /^Invalid arguments for \w+: items\.0: .+ \(the arguments are \d+ characters: checked up to their first issue\)\.$/,
      );
      expect(result.error?.details?.issues).toHaveLength(1);
      expectBounded(store.get(result.traceId), result);
      // Large arguments that are right still pass, zod's own check after the first-issue one.
      const valid = await ex.execute({
        name: tool,
        arguments: { ...(tool === 'strict' ? { n: 1 } : {}), items: Array.from({ length: 500_000 }, (_, i) => i) },
      });
      expect(valid.success).toBe(true);
    });
  }

  it("a tool's own permission check refusing with 5 MB of message and details is bounded everywhere", async () => {
    const { store, executor: ex } = executor();
    const result = await ex.execute({ name: 'refusing', arguments: { chars: 5_000_000 } });
    expect(result.error).toMatchObject({ code: 'PERMISSION_DENIED', stage: 'permission' });
    expect(result.error?.details?.check).toBe('test check');
    expectBounded(store.get(result.traceId), result);
  });

  it('huge, deep details holding a secret are scrubbed whole, then cut, in every attempt and the error', async () => {
    const { store, executor: ex } = executor();
    const password = 'zq9-detail-password-5521';
    const result = await ex.execute({ name: 'detailed', arguments: { password } });
    expect(result.error?.code).toBe('UPSTREAM_TOOL_ERROR');
    const record = store.get(result.traceId);
    expect(record?.attempts).toHaveLength(2);
    expectBounded(record, result);
    const stored = JSON.stringify(record);
    expect(stored).not.toContain(password.slice(0, 4));
    expect(stored).toContain(CUT_DEEPER_DETAILS);
    expect(stored).toMatch(/…\[9\d{4} more items not kept\]/);
  });
});
