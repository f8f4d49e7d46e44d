import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { boundErrorMessage, MAX_ERROR_MESSAGE_CHARS } from './bound-error';
import { defineTool } from './define-tool';
import { errorData, ToolError } from './errors';
import { createExecutor } from './executor';
import { createRegistry } from './registry';

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

describe('boundErrorMessage', () => {
  it('keeps a message within the bound as it is, the same object', () => {
    const error = errorData('X', 'short');
    expect(boundErrorMessage(error)).toBe(error);
    const exact = errorData('X', 'm'.repeat(MAX_ERROR_MESSAGE_CHARS));
    expect(boundErrorMessage(exact)).toBe(exact);
  });

  it('cuts a longer message head and tail with a marker, keeping the rest of the error', () => {
    const error = errorData('X', `${'h'.repeat(5_000_000)}${'t'.repeat(10)}`, { details: { n: 1 }, hint: 'do this' });
    const bounded = boundErrorMessage(error);
    expect(bounded.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(bounded.message).toMatch(/^h+\n…\[truncated \d+ of 5000010 characters\]…\nh+t{10}$/);
    expect(bounded).toMatchObject({ code: 'X', details: { n: 1 }, hint: 'do this' });
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
