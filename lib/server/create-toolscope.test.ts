import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../config';
import { openDatabase } from '../db/open-database';
import { encodeTraceId } from '../db/trace-id';
import { makeTrace } from '../db/trace-store-suite';
import { defineTool } from '../executor/define-tool';
import { createToolscope } from './create-toolscope';

const dirs: string[] = [];
function dataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-root-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('createToolscope', () => {
  it('takes the approver, faults, extra tools and extra sinks from its host; one close() ends it all', async () => {
    const dir = dataDir();
    const seen: string[] = [];
    const echo = defineTool({
      name: 'echo_write',
      description: 'Writes nothing; says what it got.',
      inputSchema: z.object({ text: z.string() }),
      sideEffect: 'write',
      execute: ({ text }) => ({ text }),
    });
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, dir), {
      tools: [echo],
      approver: { request: async (request) => ({ approved: true, by: `script for ${request.tool}` }) },
      faults: {
        faultFor: ({ tool }) => (tool === 'calculator' ? { ruleId: null, kind: 'latency', ms: 5 } : null),
      },
      sinks: [
        {
          begin: (record) => void seen.push(`begin:${record.tool}`),
          update: (record) => void seen.push(`update:${record.status}`),
          finish: (record) => {
            seen.push(`finish:${record.tool}:${record.status}`);
            throw new Error('an exporter that fails (expected by the test)');
          },
        },
      ],
    });
    const written = await ts.executor.execute({ name: 'echo_write', arguments: { text: 'hi' } });
    expect(written).toMatchObject({ success: true, output: { text: 'hi' } });
    expect(ts.store.get(written.traceId)?.approval).toMatchObject({
      decision: 'approved',
      by: 'script for echo_write',
    });
    const calc = await ts.executor.execute({ name: 'calculator', arguments: { expression: '2+3' } });
    expect(calc.success).toBe(true);
    expect(ts.store.get(calc.traceId)?.attempts.map((a) => a.fault)).toEqual([
      { ruleId: null, kind: 'latency', ms: 5 },
    ]);
    // Extra sinks are told off the call's path (lib/executor/fan-out-sink.ts), so a moment later.
    await expect
      .poll(() => seen)
      .toEqual([
        'begin:echo_write',
        'update:awaiting_approval',
        'update:running',
        'finish:echo_write:succeeded',
        'begin:calculator',
        'finish:calculator:succeeded',
      ]);
    ts.close();
    expect(() => ts.store.get(calc.traceId)).toThrow();
  });

  it('creates the data folder, workspace, database and a 0600 vault key', async () => {
    const dir = dataDir();
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, dir));
    // Spaced: raw arguments other than their stored text are sealed, which creates the key.
    const result = await ts.executor.execute({ name: 'calculator', arguments: '{"expression": "1+1"}' });
    expect(result.success).toBe(true);
    ts.close();
    expect(fs.existsSync(path.join(dir, 'data', 'workspace'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'data', 'toolscope.db'))).toBe(true);
    expect(fs.statSync(path.join(dir, 'data', 'vault.key')).mode & 0o777).toBe(0o600);
  });

  it('answers a call only once its final record is committed', async () => {
    const dir = dataDir();
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, dir));
    // Another connection sees only what is committed, as a restarted process would.
    const other = openDatabase(ts.config.dbPath);
    const statusOnDisk = other.prepare('SELECT status FROM tool_calls WHERE id = ?').pluck();
    try {
      // Live views hear of a finished call only once it is committed, too.
      const publishedBeforeCommit: string[] = [];
      ts.events.subscribe((event) => {
        if (event.kind !== 'trace') return;
        const { data } = event;
        if (data.type === 'finish' && statusOnDisk.get(encodeTraceId(data.trace_id)) !== data.status) {
          publishedBeforeCommit.push(data.trace_id);
        }
      });
      const seen = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const expression = i % 2 === 0 ? `${i} + 1` : `${i} +`;
          const result = await ts.executor.execute({ name: 'calculator', arguments: { expression } });
          return [result.status, statusOnDisk.get(encodeTraceId(result.traceId))];
        }),
      );
      expect(seen.map(([answered]) => answered)).toContain('failed');
      for (const [answered, stored] of seen) expect(stored).toBe(answered);
      expect(publishedBeforeCommit).toEqual([]);
    } finally {
      other.close();
      ts.close();
    }
  });

  it('marks calls a previous process left running as interrupted, and keeps pending approvals', () => {
    const dir = dataDir();
    const config = loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir);
    const first = createToolscope(config);
    const running = makeTrace({ status: 'running', sideEffect: 'exec', finishedAt: null });
    const pending = makeTrace({ status: 'awaiting_approval', sideEffect: 'write', finishedAt: null });
    first.store.begin(running);
    first.store.begin(pending);
    // Closed, not stopped: its calls stay as a dead process leaves them (and it lets the data folder go).
    first.close();

    const second = createToolscope(config);
    expect(second.interruptedAtStart).toBe(1);
    expect(second.store.get(running.id)).toMatchObject({ status: 'interrupted', error: { code: 'INTERRUPTED' } });
    expect(second.store.get(pending.id)?.status).toBe('awaiting_approval');
    second.close();
  });

  it('applies the config: policies, shell allowlist, redaction keys', async () => {
    const dir = dataDir();
    fs.writeFileSync(
      path.join(dir, 'toolscope.config.json'),
      JSON.stringify({
        policies: { run_shell: 'allow', calculator: 'deny' },
        shell: { allow: ['echo'] },
        redact: { keys: ['x-team'] },
      }),
    );
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, dir));
    const echo = await ts.executor.execute({ name: 'run_shell', arguments: { command: ['echo', 'hi'] } });
    expect(echo).toMatchObject({ success: true, output: 'hi\n' });
    const ls = await ts.executor.execute({ name: 'run_shell', arguments: { command: ['ls'] } });
    expect(ls.error?.code).toBe('PERMISSION_DENIED');
    const calc = await ts.executor.execute({ name: 'calculator', arguments: { expression: '1' } });
    expect(calc.status).toBe('denied');
    // An unknown field is refused at validation, and stored redacted all the same.
    const extra = await ts.executor.execute({
      name: 'calculator',
      arguments: { expression: '1', 'x-team': 'blue' },
    });
    expect(extra.error?.code).toBe('INVALID_ARGUMENTS');
    expect(ts.store.get(extra.traceId)?.arguments).toMatchObject({ 'x-team': '[REDACTED]' });
    ts.close();
  });
});

describe('the HTTP tool and Toolscope itself', () => {
  it("refuses the app's own address on loopback", async () => {
    const dir = dataDir();
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data', PORT: '3456' }, dir));
    const result = await ts.executor.execute({
      name: 'http_request',
      arguments: { url: 'http://127.0.0.1:3456/api/v1/traces' },
    });
    // Refused by the tool's own check at the permission stage, before anything is sent.
    expect(result.error).toMatchObject({ code: 'PERMISSION_DENIED', stage: 'permission' });
    expect(result.error?.details).toMatchObject({ check: 'http allowlist' });
    expect(result.error?.message).toContain("Toolscope's own API");
    ts.close();
  });
});

describe('live events', () => {
  it('publishes a running call’s progress to the stream following it only, and its output live', async () => {
    const dir = dataDir();
    fs.writeFileSync(
      path.join(dir, 'toolscope.config.json'),
      JSON.stringify({ policies: { run_shell: 'allow' }, shell: { allow: ['sh'] } }),
    );
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, dir));
    const following: string[] = [];
    const everyone: string[] = [];
    ts.events.subscribe((event) => everyone.push(event.kind === 'trace' ? event.data.type : event.kind));
    const call = ts.executor.execute({
      name: 'run_shell',
      arguments: { command: ['sh', '-c', 'echo one; sleep 0.3; echo two'] },
    });
    for (let i = 0; i < 100 && ts.executor.inFlightIds().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [id] = ts.executor.inFlightIds();
    ts.events.subscribe((event) => following.push(event.kind === 'trace' ? event.data.type : event.kind), {
      trace: id,
    });
    let live = ts.executor.inFlight(id ?? '');
    for (let i = 0; i < 100 && !live?.stdout?.includes('one'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      live = ts.executor.inFlight(id ?? '');
    }
    expect(live?.stdout).toContain('one');
    await call;
    expect(following).toContain('progress');
    expect(following.at(-1)).toBe('finish');
    expect(everyone).not.toContain('progress');
    expect(everyone).toEqual(expect.arrayContaining(['begin', 'finish']));
    ts.close();
  });
});
