import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { appOf, callApp, type Json } from '../http/testing/call-app';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { defineTool } from './define-tool';
import { createExecutor } from './executor';
import type { FaultSource } from './ports';
import { createRedactor } from './redact';
import { createRegistry } from './registry';

/**
 * A bug inside the pipeline (a throw from Toolscope's own code or ports, not a tool's error)
 * never leaves a call `running`: it ends failed INTERNAL_ERROR, with the error and its stack in
 * the trace, out of flight and out of the approvals queue.
 */
const toolscopes = testToolscopes('toolscope-defect-');

/** Toolscope's fault source with a bug: it throws for the tools named. */
const brokenFaults = (...tools: string[]): FaultSource => ({
  faultFor: (request) => {
    if (tools.includes(request.tool)) throw new TypeError(`fault source broke on ${request.tool}`);
    return null;
  },
});

async function until<T>(read: () => T | null | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe('a bug inside the pipeline, over HTTP', () => {
  it('answers the call failed INTERNAL_ERROR (not a 500), recorded with its stack, nothing left running', async () => {
    const ts = toolscopes.start(toolscopes.dataDir(), { faults: brokenFaults('calculator') });
    const response = await callApp(appOf(ts), 'POST', '/api/v1/tool-calls', {
      body: {
        session_id: 's-bug',
        tool_calls: [
          call('call_bug', 'calculator', { expression: '1+1' }),
          call('call_ok', 'read_file', { path: 'x' }),
        ],
      },
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as Json;
    expect(json.results[0]).toMatchObject({
      status: 'failed',
      success: false,
      error: { code: 'INTERNAL_ERROR', kind: 'internal', retryable: false, stage: 'execute' },
    });
    expect(json.results[0].error.message).toBe(
      'Toolscope failed while handling this call (execute stage): fault source broke on calculator. The tool did not run.',
    );
    expect(json.messages[0].content).toMatch(/^Error INTERNAL_ERROR: /);
    // The other call of the batch is answered as ever.
    expect(json.results[1].error.code).toBe('FILE_NOT_FOUND');

    const trace = ts.store.get(json.results[0].trace_id);
    expect(trace?.status).toBe('failed');
    expect(trace?.error?.details).toMatchObject({ name: 'TypeError', message: 'fault source broke on calculator' });
    expect(String(trace?.error?.details?.stack)).toContain('fault source broke on calculator');
    expect(trace?.stages.map((stage) => [stage.name, stage.status])).toEqual([
      ['parse', 'ok'],
      ['validate', 'ok'],
      ['permission', 'ok'],
      ['execute', 'failed'],
      ['normalize', 'skipped'],
      ['trace', 'ok'],
    ]);
    expect(ts.executor.inFlightIds()).toEqual([]);
    expect(ts.store.list({ status: 'running' }).items).toEqual([]);
  });

  it('ends an approved call failed, out of the approvals queue, when the bug comes after the approval', async () => {
    const ts = toolscopes.start(toolscopes.dataDir(), { faults: brokenFaults('write_file') });
    const answer = callApp(appOf(ts), 'POST', '/api/v1/tool-calls', {
      body: { tool_calls: [call('call_approved', 'write_file', { path: 'bug.txt', content: 'x' })] },
    });
    const traceId = await until(() => ts.approvals.list()[0]?.traceId);
    const decided = await callApp(appOf(ts), 'POST', `/api/v1/approvals/${traceId}`, {
      body: { decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    const json = (await (await answer).json()) as Json;
    expect(json.results[0]).toMatchObject({ trace_id: traceId, status: 'failed', error: { code: 'INTERNAL_ERROR' } });
    expect(ts.store.get(traceId)).toMatchObject({
      status: 'failed',
      error: { code: 'INTERNAL_ERROR' },
      approval: { decision: 'approved' },
    });
    expect(ts.approvals.list()).toEqual([]);
    expect(ts.executor.inFlightIds()).toEqual([]);
    expect(fs.existsSync(path.join(ts.config.workspace, 'bug.txt'))).toBe(false);
  });
});

describe('a bug inside the pipeline, in the executor', () => {
  it('ends the call failed even when the trace stage itself throws, and answers whoever waits on it', async () => {
    const store = createMemoryTraceStore();
    const redactor = createRedactor();
    // A scrubber with a bug that shows once the tool has run: normalize throws, and so does the
    // trace stage when it scrubs the error.
    let broken = false;
    const scrub = <T>(run: () => T): T => {
      if (broken) throw new Error('scrubber broke');
      return run();
    };
    const one = defineTool({
      name: 'one',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        broken = true;
        return { n: 1 };
      },
    });
    const executor = createExecutor({
      registry: createRegistry([one]),
      sink: store,
      redactor: {
        ...redactor,
        scrubText: (text, secrets) => scrub(() => redactor.scrubText(text, secrets)),
        scrubValue: (value, secrets) => scrub(() => redactor.scrubValue(value, secrets)),
      },
    });
    const running = executor.execute({ id: 'call_scrub', name: 'one', arguments: {} }, { traceId: 'scrub' });
    const waiter = executor.whenFinished('scrub');
    const result = await running;
    expect(result).toMatchObject({ status: 'failed', success: false, error: { code: 'INTERNAL_ERROR' } });
    expect(result.error?.message).toContain('The tool had started, so its effect may have happened.');
    expect(await waiter).toBe(result);
    expect(store.get('scrub')).toMatchObject({ status: 'failed', error: { code: 'INTERNAL_ERROR' } });
    expect(executor.inFlightIds()).toEqual([]);
  });
});
