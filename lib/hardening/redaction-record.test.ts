import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import { createExecutor } from '../executor/executor';
import { createManualClock } from '../executor/manual-clock';
import { processOutput } from '../executor/process-output';
import { createRedactor, REDACTED } from '../executor/redact';
import { createRegistry } from '../executor/registry';
import type { TraceRecord } from '../executor/types';

/**
 * A value seen under a secret key is scrubbed from every field of the call's record: the other
 * arguments, output, stdout, stderr, each attempt's error (already while the call still runs),
 * stage notes, error details and the model message; and the server's known secrets everywhere.
 * The executor runs for real on the in-memory store.
 */
const KEY = 'hunter2-xyz-record-0042';
const KNOWN = 'known-env-secret-7788';

const leaky = defineTool({
  name: 'leaky',
  description: 'Echoes its api_key into everything it can',
  sideEffect: 'none',
  inputSchema: z.object({ api_key: z.string(), note: z.string(), fail: z.enum(['never', 'once', 'always']) }),
  retry: { maxAttempts: 2, baseDelayMs: 1_000, maxDelayMs: 1_000, jitter: 0 },
  execute: (input, ctx) => {
    if (input.fail === 'always' || (input.fail === 'once' && ctx.attempt === 1)) {
      throw ToolError.temporary('LEAKY_FAILED', `could not use ${input.api_key} (env ${KNOWN})`, {
        hint: `try another key than ${input.api_key}`,
        details: { tried: input.api_key, nested: { deep: [`key=${input.api_key}`] } },
      });
    }
    return processOutput({
      stdout: JSON.stringify({ echoed: input.api_key, env: KNOWN }),
      stderr: `used ${input.api_key}`,
      exitCode: 0,
    });
  },
});

function setup() {
  const store = createMemoryTraceStore();
  const clock = createManualClock();
  const redactor = createRedactor([], { secrets: [KNOWN] });
  const executor = createExecutor({ registry: createRegistry([leaky]), sink: store, clock, random: () => 0, redactor });
  return { store, clock, executor };
}

/** The record as shown and stored: the raw arguments only ever exist sealed (the API never serves them). */
function expectClean(record: Partial<TraceRecord> | null | undefined): void {
  expect(record).toBeTruthy();
  const { rawArguments: _sealed, rawEditedArguments: _sealedEdit, ...shown } = record as TraceRecord;
  const text = JSON.stringify(shown);
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(KNOWN);
}

describe('a call record holds none of its secrets', () => {
  it('on success: arguments, output, stdout, stderr, stage notes and the model message', async () => {
    const { store, executor } = setup();
    const result = await executor.execute({
      name: 'leaky',
      arguments: { api_key: KEY, note: `my key is ${KEY}`, fail: 'never' },
    });
    expect(result.success).toBe(true);
    const record = store.get(result.traceId);
    expectClean(record);
    expect(record?.arguments).toEqual({ api_key: REDACTED, note: `my key is ${REDACTED}`, fail: 'never' });
    expect(record?.stderr).toBe(`used ${REDACTED}`);
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  it('while it retries (the live view) and once it failed: every attempt error, its details and the model message', async () => {
    const { store, executor, clock } = setup();
    const pending = executor.execute({
      name: 'leaky',
      arguments: JSON.stringify({ api_key: KEY, note: KEY, fail: 'always' }),
    });
    await clock.advance(0);
    const [id] = executor.inFlightIds();
    const live = executor.inFlight(id as string);
    expect(live?.attempts[0]?.error?.code).toBe('LEAKY_FAILED');
    expectClean(live);
    await clock.advance(1_000);
    const result = await pending;
    expect(result.success).toBe(false);
    const record = store.get(result.traceId);
    expectClean(record);
    expect(record?.attempts).toHaveLength(2);
    expect(record?.error?.details).toEqual({ tried: REDACTED, nested: { deep: [`key=${REDACTED}`] } });
    expect(record?.modelMessage).toContain(`could not use ${REDACTED}`);
  });

  it('for arguments that are not JSON: the value of a secret key, and where the error quotes them', async () => {
    const { store, executor } = setup();
    const result = await executor.execute({ name: 'leaky', arguments: `{"api_key": "${KEY}", "note": "${KEY}" ` });
    expect(result.error?.code).toBe('INVALID_ARGUMENTS');
    const record = store.get(result.traceId);
    expectClean(record);
    expect(record?.arguments).toBe(`{"api_key": "${REDACTED}", "note": "${REDACTED}" `);
    expect(store.openSealedArguments(result.traceId)?.rawArguments).toContain(KEY);
  });

  it('for an unknown tool named like a secret, and a call id holding a secret shape', async () => {
    const { store, executor } = setup();
    const result = await executor.execute({
      id: 'call ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
      name: 'sk-proj-T3stS3cr3tK3yABCDEFGH1234',
      arguments: { password: KEY },
    });
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
    const record = store.get(result.traceId);
    expectClean(record);
    expect(JSON.stringify(record)).not.toMatch(/ghp_A1b2|sk-proj-T3st/);
  });
});
