import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { createRunShellTool } from '../tools/run-shell';
import { defineTool } from './define-tool';
import { ERROR_CODES, errorData, ToolError } from './errors';
import { createExecutor, type ExecutorOptions } from './executor';
import { createManualClock } from './manual-clock';
import { processOutput } from './process-output';
import { REDACTED } from './redact';
import { createRegistry } from './registry';
import type { AnyTool, TraceRecord, TraceSink } from './types';

function setup(tools: AnyTool[], options: Partial<ExecutorOptions> = {}) {
  const store = createMemoryTraceStore();
  const clock = createManualClock();
  const executor = createExecutor({ registry: createRegistry(tools), sink: store, clock, random: () => 0, ...options });
  return { store, clock, executor };
}

function stageMap(stages: { name: string; status: string }[] | undefined) {
  return Object.fromEntries((stages ?? []).map((s) => [s.name, s.status]));
}

describe('process failures are failed attempts', () => {
  it('uses the process `failure` (OUTPUT_LIMIT) instead of NON_ZERO_EXIT, keeping stdout', async () => {
    const limited = defineTool({
      name: 'limited',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () =>
        processOutput({
          stdout: 'x'.repeat(100),
          stderr: '',
          exitCode: 137,
          signal: 'SIGKILL',
          failure: errorData(
            'OUTPUT_LIMIT',
            'The output passed the 100-byte limit (maxOutputBytes), so the process was stopped.',
            {
              details: { limit: 'maxOutputBytes', value: 100 },
            },
          ),
        }),
    });
    const { executor, store } = setup([limited]);
    const result = await executor.execute({ name: 'limited', arguments: {} });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({
      code: 'OUTPUT_LIMIT',
      kind: 'limit',
      retryable: false,
      stage: 'execute',
      details: { limit: 'maxOutputBytes', value: 100 },
    });
    expect(result.error?.hint).toMatch(/narrow the command/);
    const trace = store.get(result.traceId);
    expect(trace?.stdout).toBe('x'.repeat(100));
    expect(trace?.exitCode).toBe(137);
    expect(trace?.attempts.map((a) => [a.outcome, a.error?.code])).toEqual([['error', 'OUTPUT_LIMIT']]);
    expect(stageMap(trace?.stages)).toMatchObject({ execute: 'failed', normalize: 'ok' });
    expect(trace?.modelMessage).toContain('Error OUTPUT_LIMIT');
  });

  it('records a real run_shell exiting non-zero as a failed attempt, its stdout and stderr kept', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-exit-'));
    try {
      const shell = createRunShellTool({ workspace, allow: ['sh'] });
      const store = createMemoryTraceStore();
      const executor = createExecutor({ registry: createRegistry([shell]), sink: store, policy: () => 'allow' });
      const result = await executor.execute({
        name: 'run_shell',
        arguments: { command: ['sh', '-c', 'echo partial; echo broken >&2; exit 3'] },
      });
      expect(result.error).toMatchObject({ code: 'NON_ZERO_EXIT', stage: 'execute' });
      expect(result.error?.message).toBe('The command exited with code 3: broken');
      const trace = store.get(result.traceId);
      expect(trace?.stdout).toBe('partial\n');
      expect(trace?.stderr).toBe('broken\n');
      expect(trace?.exitCode).toBe(3);
      expect(trace?.attempts.map((a) => a.outcome)).toEqual(['error']);
      expect(stageMap(trace?.stages)).toMatchObject({ permission: 'ok', execute: 'failed', normalize: 'ok' });
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('applies the retry rules to a failed process: a retryable failure is retried, then succeeds', async () => {
    let runs = 0;
    const flaky = defineTool({
      name: 'flaky-proc',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 3, baseDelayMs: 0, jitter: 0 },
      inputSchema: z.object({}),
      execute: () => {
        runs++;
        return runs === 1
          ? processOutput({
              stdout: '',
              stderr: 'busy',
              exitCode: 75,
              failure: errorData('TEMPFAIL', 'busy', { kind: 'temporary', retryable: true }),
            })
          : processOutput({ stdout: '{"ok":true}', stderr: '', exitCode: 0 });
      },
    });
    const { executor, store } = setup([flaky]);
    const result = await executor.execute({ name: 'flaky-proc', arguments: {} });
    expect(result.output).toEqual({ ok: true });
    expect(store.get(result.traceId)?.attempts.map((a) => a.outcome)).toEqual(['error', 'ok']);
  });

  it('keeps OUTPUT_LIMIT in the code table as a limit', () => {
    expect(ERROR_CODES.OUTPUT_LIMIT).toMatchObject({ kind: 'limit', retryable: false });
  });
});

describe('tool permission checks', () => {
  const allowlisted = (check: (input: { program: string }) => ReturnType<NonNullable<AnyTool['checkPermission']>>) => {
    let ran = 0;
    const tool = defineTool({
      name: 'shell',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ program: z.string() }),
      checkPermission: check,
      execute: () => {
        ran++;
        return 'ran';
      },
    });
    return { tool, ran: () => ran };
  };

  it('refuses at the permission stage, naming the check, with the refusal details and hint', async () => {
    const { tool, ran } = allowlisted(({ program }) =>
      program === 'ls'
        ? null
        : {
            check: 'shell allowlist',
            message: `"${program}" is not on the shell allowlist (ls) in /srv/toolscope.config.json.`,
            hint: 'Use one of the allowed programs.',
            details: { program, allowed: ['ls'] },
          },
    );
    const { executor, store } = setup([tool]);
    const refused = await executor.execute({ name: 'shell', arguments: { program: 'rm' } });
    expect(ran()).toBe(0);
    expect(refused.status).toBe('denied');
    expect(refused.error).toEqual({
      code: 'PERMISSION_DENIED',
      kind: 'permission',
      retryable: false,
      message: '"rm" is not on the shell allowlist (ls) in /srv/toolscope.config.json.',
      hint: 'Use one of the allowed programs.',
      details: { check: 'shell allowlist', program: 'rm', allowed: ['ls'] },
      stage: 'permission',
    });
    const trace = store.get(refused.traceId);
    expect(stageMap(trace?.stages)).toMatchObject({ permission: 'failed', execute: 'skipped' });
    expect(trace?.stages.find((s) => s.name === 'permission')?.detail).toBe(
      'shell allowlist: "rm" is not on the shell allowlist (ls) in /srv/toolscope.config.json.',
    );
    expect((await executor.execute({ name: 'shell', arguments: { program: 'ls' } })).success).toBe(true);
  });

  it('treats a check that throws as a refusal', async () => {
    const { tool, ran } = allowlisted(() => {
      throw new Error('allowlist unreadable');
    });
    const { executor } = setup([tool]);
    const result = await executor.execute({ name: 'shell', arguments: { program: 'ls' } });
    expect(ran()).toBe(0);
    expect(result.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      stage: 'permission',
      details: { check: 'shell permission check', cause: 'allowlist unreadable' },
    });
    expect(result.error?.message).toContain('allowlist unreadable');
  });

  it('checks arguments an approver edited, too', async () => {
    const { tool, ran } = allowlisted(({ program }) =>
      program === 'ls' ? null : { check: 'shell allowlist', message: `${program} is not allowed` },
    );
    const { executor } = setup([tool], {
      policy: () => 'ask',
      approver: { request: async () => ({ approved: true, input: { program: 'rm' } }) },
    });
    const result = await executor.execute({ name: 'shell', arguments: { program: 'ls' } });
    expect(ran()).toBe(0);
    expect(result.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'rm is not allowed',
      stage: 'permission',
    });
  });
});

describe('denials name the config file in use', () => {
  const write = defineTool({
    name: 'write',
    description: 'x',
    sideEffect: 'write',
    inputSchema: z.object({}),
    execute: () => 'wrote',
  });

  it('names the config file when there is one', async () => {
    const { executor } = setup([write], { configFile: '/srv/app/toolscope.config.json' });
    const result = await executor.execute({ name: 'write', arguments: {} });
    expect(result.error?.message).toContain('in /srv/app/toolscope.config.json');
    const denied = setup([write], {
      configFile: '/srv/app/toolscope.config.json',
      policy: () => ({ policy: 'deny', rule: 'deny write', source: '/srv/app/toolscope.config.json' }),
    });
    const deny = await denied.executor.execute({ name: 'write', arguments: {} });
    expect(deny.error?.message).toBe(
      'The policy denies this call to write (deny write; set in /srv/app/toolscope.config.json).',
    );
  });

  it('says no config file is in use, and where one would be read', async () => {
    const { executor } = setup([write]);
    const result = await executor.execute({ name: 'write', arguments: {} });
    expect(result.error?.message).toMatch(/none is in use: create toolscope\.config\.json/);
    expect(result.error?.message).toContain('TOOLSCOPE_CONFIG');
  });
});

describe('fail_fast', () => {
  it('says which call of the batch failed, links to its trace, and names no skipped stage', async () => {
    const tool = defineTool({
      name: 'maybe',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 1 },
      inputSchema: z.object({ fail: z.boolean() }),
      execute: ({ fail }) => {
        if (fail) throw new Error('nope');
        return 'ok';
      },
    });
    const { executor, store } = setup([tool]);
    const results = await executor.executeBatch(
      [
        { id: 'call_a', name: 'maybe', arguments: { fail: true } },
        { id: 'call_b', name: 'maybe', arguments: { fail: false } },
      ],
      { maxConcurrency: 1, failFast: true },
    );
    const [failed, cancelled] = results;
    expect(cancelled?.status).toBe('cancelled');
    expect(cancelled?.error?.message).toBe('Cancelled because call call_a (maybe) of the same batch failed.');
    expect(cancelled?.error?.details).toEqual({
      cancelledBy: 'fail_fast',
      reason: 'another call in the same batch failed',
      failedTraceId: failed?.traceId,
      failedToolCallId: 'call_a',
      failedTool: 'maybe',
    });
    expect(cancelled?.error?.stage).toBeUndefined();
    const trace = store.get(cancelled?.traceId ?? '');
    expect(trace?.status).toBe('cancelled');
    expect(trace?.stages.filter((s) => s.status !== 'skipped').map((s) => s.name)).toEqual(['trace']);
  });
});

describe('secrets on error paths', () => {
  it('scrubs the call’s secrets from the error, the attempts and the stage details', async () => {
    const leaky = defineTool({
      name: 'leaky',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 2, baseDelayMs: 0, jitter: 0 },
      inputSchema: z.object({ password: z.string() }),
      execute: ({ password }) => {
        throw ToolError.temporary('LOGIN_FAILED', `login with ${password} failed`, { details: { tried: password } });
      },
    });
    const { executor, store } = setup([leaky]);
    const result = await executor.execute({ name: 'leaky', arguments: { password: 'hunter22' } });
    expect(result.error?.message).toBe(`login with ${REDACTED} failed`);
    expect(result.error?.details).toEqual({ tried: REDACTED });
    const trace = store.get(result.traceId);
    const stored = JSON.stringify({ ...trace, rawArguments: null });
    expect(stored).not.toContain('hunter22');
    expect(trace?.attempts).toHaveLength(2);
  });

  it('scrubs them from a NON_ZERO_EXIT message that quotes stderr', async () => {
    const tool = defineTool({
      name: 'proc',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ token: z.string() }),
      sensitivePaths: ['token'],
      execute: ({ token }) => processOutput({ stdout: '', stderr: `bad token ${token}`, exitCode: 1 }),
    });
    const { executor, store } = setup([tool]);
    const result = await executor.execute({ name: 'proc', arguments: { token: 'tok-12345' } });
    expect(result.error?.message).toBe(`The command exited with code 1: bad token ${REDACTED}`);
    expect(JSON.stringify({ ...store.get(result.traceId), rawArguments: null })).not.toContain('tok-12345');
  });
});

describe('stage details', () => {
  it('joins the parts of a detail without a stray period', async () => {
    const stuck = defineTool({
      name: 'stuck',
      description: 'x',
      sideEffect: 'none',
      timeoutMs: 1000,
      retry: { maxAttempts: 3, baseDelayMs: 0, jitter: 0 },
      inputSchema: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const { executor, clock, store } = setup([stuck]);
    const pending = executor.execute({ name: 'stuck', arguments: {} });
    await clock.advance(3000);
    const result = await pending;
    expect(store.get(result.traceId)?.stages.find((s) => s.name === 'execute')?.detail).toBe(
      'TIMEOUT: stuck timed out after 1000 ms; 3 attempts',
    );
  });
});

describe('model truncation', () => {
  it('says how much of the output the model got when it was cut head and tail', async () => {
    const big = defineTool({
      name: 'big',
      description: 'x',
      sideEffect: 'none',
      maxModelOutputChars: 1064,
      inputSchema: z.object({}),
      execute: () => 'a'.repeat(5000),
    });
    const small = defineTool({ ...big, name: 'small', execute: () => 'a' });
    // The record as the executor hands it to the sink (persisting it is the store's business).
    const finished = new Map<string, TraceRecord>();
    const sink: TraceSink = { begin: () => {}, update: () => {}, finish: (r) => void finished.set(r.id, r) };
    const executor = createExecutor({ registry: createRegistry([big, small]), sink });
    const cut = await executor.execute({ name: 'big', arguments: {} });
    expect(finished.get(cut.traceId)?.modelTruncation).toEqual({ headChars: 700, tailChars: 300, totalChars: 5000 });
    expect((cut.output as string).startsWith('a'.repeat(700))).toBe(true);
    const whole = await executor.execute({ name: 'small', arguments: {} });
    expect(finished.get(whole.traceId)?.modelTruncation).toBeNull();
  });
});
