import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { inputJsonSchema } from './json-schema';
import { validateInput } from './validate-input';

const inputSchema = z
  .object({
    path: z.string().describe('Where to write'),
    options: z.object({ mode: z.string() }).optional(),
    items: z.array(z.object({ k: z.string() })).default([]),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .describe('Arguments');

const strict = defineTool({
  name: 'strict_tool',
  description: 'Refuses unknown fields',
  sideEffect: 'none',
  inputSchema,
  execute: (input) => input,
});

const lenient = defineTool({
  name: 'lenient_tool',
  description: 'Drops unknown fields',
  sideEffect: 'none',
  inputSchema,
  unknownArguments: 'ignore',
  execute: (input) => input,
});

describe('defineTool: unknown arguments', () => {
  it('refuses unknown fields at the top and in nested objects, not in records', () => {
    expect(strict.unknownArguments).toBe('reject');
    expect(strict.inputSchema.safeParse({ path: 'a', extra: true }).success).toBe(false);
    expect(strict.inputSchema.safeParse({ path: 'a', options: { mode: 'x', other: 1 } }).success).toBe(false);
    expect(strict.inputSchema.safeParse({ path: 'a', items: [{ k: 'x', v: 1 }] }).success).toBe(false);
    expect(strict.inputSchema.safeParse({ path: 'a', headers: { anything: 'goes' } }).success).toBe(true);
  });

  it('leaves the schema it was given untouched', () => {
    expect(inputSchema.safeParse({ path: 'a', extra: true }).success).toBe(true);
  });

  it("accepts and drops unknown fields with unknownArguments: 'ignore'", () => {
    const parsed = lenient.inputSchema.safeParse({ path: 'a', extra: true, options: { mode: 'x', other: 1 } });
    expect(parsed).toMatchObject({ success: true, data: { path: 'a', options: { mode: 'x' } } });
    expect(parsed.data).not.toHaveProperty('extra');
  });

  it('says additionalProperties: false in the JSON Schema where refused, and not where ignored', () => {
    expect(inputJsonSchema(strict)).toMatchObject({
      additionalProperties: false,
      description: 'Arguments',
      properties: {
        path: { description: 'Where to write' },
        options: { additionalProperties: false },
        items: { items: { additionalProperties: false } },
        headers: { additionalProperties: { type: 'string' } },
      },
    });
    const loose = JSON.stringify(inputJsonSchema(lenient));
    expect(loose).not.toContain('"additionalProperties":false');
  });
});

describe('validateInput: unknown fields', () => {
  it('gives one issue per unknown field, naming what the object takes', () => {
    const result = validateInput('strict_tool', strict.inputSchema, {
      path: 'a',
      extra: true,
      api_key: 'k',
      options: { mode: 'x', colour: 'red' },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENTS', stage: 'validate' });
    expect(result.error.details?.issues).toEqual([
      { path: 'options.colour', message: 'Unknown field "colour"; options takes: mode', code: 'unrecognized_keys' },
      {
        path: 'extra',
        message: 'Unknown field "extra"; strict_tool takes: path, options, items, headers',
        code: 'unrecognized_keys',
      },
      {
        path: 'api_key',
        message: 'Unknown field "api_key"; strict_tool takes: path, options, items, headers',
        code: 'unrecognized_keys',
      },
    ]);
    expect(result.error.message).toContain('extra: Unknown field "extra"');
    expect(result.error.message).toContain('api_key: Unknown field "api_key"');
  });
});
