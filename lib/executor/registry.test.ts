import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { inputJsonSchema, toAnthropicTool, toOpenAITool } from './json-schema';
import { createRegistry } from './registry';

const echo = defineTool({
  name: 'echo',
  description: 'Echo text back',
  sideEffect: 'none',
  inputSchema: z.object({
    text: z.string().describe('What to echo'),
    times: z.number().int().min(1).default(1),
    mode: z.enum(['plain', 'loud']).optional(),
  }),
  execute: ({ text }) => text,
});

describe('createRegistry', () => {
  it('registers, finds, lists and unregisters tools', () => {
    const registry = createRegistry([echo]);
    expect(registry.get('echo')).toBe(echo);
    expect(registry.list().map((t) => t.name)).toEqual(['echo']);
    expect(registry.unregister('echo')).toBe(true);
    expect(registry.unregister('echo')).toBe(false);
    expect(registry.get('echo')).toBeUndefined();
  });

  it("tells its listeners of every change, and replaces one owner's tools at once", () => {
    const registry = createRegistry([echo]);
    const changes: unknown[] = [];
    const stop = registry.onChange((change) => changes.push(change));
    const tool = (name: string) => ({ ...echo, name });
    const a = tool('fs__a');
    const b = tool('fs__b');
    registry.register(a);
    registry.replace((name) => name.startsWith('fs__'), [tool('fs__a'), b]);
    registry.replace((name) => name.startsWith('fs__'), [b]);
    expect(() => registry.replace((name) => name.startsWith('fs__'), [tool('echo')])).toThrow(/already registered/);
    expect(registry.get('echo')).toBe(echo);
    registry.unregister('fs__b');
    stop();
    registry.register(tool('late'));
    expect(changes).toEqual([
      { type: 'registered', names: ['fs__a'] },
      { type: 'registered', names: ['fs__b'] },
      { type: 'updated', names: ['fs__a'] },
      { type: 'unregistered', names: ['fs__a'] },
      { type: 'unregistered', names: ['fs__b'] },
    ]);
    expect(registry.list().map((t) => t.name)).toEqual(['echo', 'late']);
  });

  it('rejects a second tool with a taken name', () => {
    const registry = createRegistry([echo]);
    expect(() => registry.register({ ...echo })).toThrow(/already registered/);
  });
});

describe('defineTool', () => {
  it('fills in defaults', () => {
    expect(echo).toMatchObject({
      timeoutMs: 30_000,
      retry: { maxAttempts: 3 },
      sensitivePaths: [],
      fallbacks: [],
      circuitBreaker: { failureThreshold: 5 },
    });
  });

  it.each([
    [{ name: 'bad name!' }, /letters, digits/],
    [{ retry: { maxAttempts: 0 } }, /maxAttempts/],
    [{ retry: { jitter: 2 } }, /jitter/],
    [{ timeoutMs: 0 }, /timeoutMs/],
  ])('refuses %j', (override, message) => {
    expect(() => defineTool({ ...echo, ...override } as Parameters<typeof defineTool>[0])).toThrow(message);
  });
});

describe('JSON Schema derived from the zod schema', () => {
  it('is what models are sent, in OpenAI and Anthropic forms', () => {
    const schema = inputJsonSchema(echo);
    expect(schema).not.toHaveProperty('$schema');
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'What to echo' },
        times: { type: 'integer', minimum: 1, default: 1 },
        mode: { enum: ['plain', 'loud'] },
      },
      required: ['text'],
    });
    expect(toOpenAITool(echo)).toEqual({
      type: 'function',
      function: { name: 'echo', description: 'Echo text back', parameters: schema },
    });
    expect(toAnthropicTool(echo)).toEqual({ name: 'echo', description: 'Echo text back', input_schema: schema });
  });
});
