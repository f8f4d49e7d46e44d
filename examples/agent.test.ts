import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToolscopeClient, type ToolscopeClient } from '../lib/client';
import { type ServedToolscope, serveToolscope } from '../lib/http/testing/serve-toolscope';

// A build-time marker of Next's: it throws when imported outside Next's server build.
vi.mock('server-only', () => ({}));

/**
 * `examples/agent.ts` as a user runs it: a child process (`tsx`) against a real Toolscope on a
 * loopback port, scripted from the shipped transcript (its pending call approved through the API),
 * and in real mode against a small chat-completions server this test starts.
 */
const root = path.resolve(__dirname, '..');
const TRANSCRIPT = path.join(root, 'examples/transcripts/parallel-fix-approve.json');

let served: ServedToolscope;
let client: ToolscopeClient;

beforeAll(async () => {
  served = await serveToolscope();
  client = createToolscopeClient({ baseUrl: served.baseUrl });
});

afterAll(() => served?.close());

interface Run {
  child: ChildProcess;
  /** What it printed so far. */
  output(): string;
  exited: Promise<number | null>;
}

function runAgent(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['examples/agent.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function eventually<T>(
  read: () => Promise<T | undefined> | T | undefined,
  what: string,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('examples/agent.ts --scripted', () => {
  it('plays the transcript as one session: parallel calls, a failure fixed next turn, a call approved through the API', async () => {
    const session = `scripted-${Date.now()}`;
    const run = runAgent(['--scripted', TRANSCRIPT, '--toolscope', served.baseUrl, '--session', session]);
    try {
      const pending = await eventually(
        async () => (await client.listApprovals()).find((a) => a.session_id === session),
        'the write_file call to wait for approval',
      );
      expect(pending).toMatchObject({ tool: 'write_file', tool_call_id: 'call_save' });
      const waiting = `⏸ write_file waits for approval: ${served.baseUrl}/approvals`;
      await eventually(() => (run.output().includes(waiting) ? true : undefined), 'the agent to say it waits');
      await client.decideApproval(pending.trace_id, { decision: 'approve' });
      expect(await run.exited).toBe(0);
    } finally {
      run.child.kill();
    }
    const out = run.output();
    expect(out).toContain(`session ${session}: ${served.baseUrl}/sessions/${session}`);
    expect(out).toContain('✓ write_file succeeded');
    expect(out).toContain('done: 5 tool calls in 4 turns');

    const { items } = await client.listTraces({ session, limit: 50 });
    const byCall = new Map(items.map((item) => [item.tool_call_id, item]));
    expect([...byCall.keys()].sort()).toEqual(['call_save', 'call_sqrt', 'call_sum', 'call_sum_fixed', 'call_unit']);
    expect(byCall.get('call_sum')?.status).toBe('failed');
    for (const id of ['call_sqrt', 'call_unit', 'call_sum_fixed', 'call_save'])
      expect(byCall.get(id)?.status).toBe('succeeded');
    // The first turn's three calls were one batch; each later turn its own.
    const traces = await Promise.all(items.map((item) => client.getTrace(item.id)));
    const batchOf = new Map(traces.map((trace) => [trace.tool_call_id, trace.batch_id]));
    expect(batchOf.get('call_sqrt')).toBe(batchOf.get('call_sum'));
    expect(batchOf.get('call_unit')).toBe(batchOf.get('call_sum'));
    expect(batchOf.get('call_sum_fixed')).not.toBe(batchOf.get('call_sum'));
    const save = traces.find((trace) => trace.tool_call_id === 'call_save');
    expect(save?.approval).toMatchObject({ decision: 'approved', by: 'local' });
    const written = fs.readFileSync(path.join(served.dir, 'workspace/notes/answers.md'), 'utf8');
    expect(written).toContain('17 * 23 + 4 = 395');
  }, 60_000);

  it('stops with status 1, saying where, when the run leaves the transcript', async () => {
    // With write_file denied by policy, the third turn's call fails where the transcript expects it to succeed.
    const strict = await serveToolscope({ policies: { write_file: 'deny' } });
    try {
      const run = runAgent(['--scripted', TRANSCRIPT, '--toolscope', strict.baseUrl]);
      expect(await run.exited).toBe(1);
      expect(run.output()).toMatch(
        /agent failed: the run left the transcript: call_save \(write_file\) was to end ok, it ended denied/,
      );
    } finally {
      await strict.close();
      (globalThis as { __toolscope?: unknown }).__toolscope = served.ts;
    }
  }, 60_000);

  it('refuses bad usage with status 2', async () => {
    const run = runAgent(['--max-iterations', 'zero', '--scripted', TRANSCRIPT]);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('--max-iterations: a whole number');
  }, 30_000);
});

/** Messages as the fake endpoint received them. */
type Received = {
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: { role: string; content?: string; tool_call_id?: string }[];
    tools: { function: { name: string } }[];
  };
};

/**
 * A stand-in for someone else's chat-completions service: asks for two calculator calls in
 * parallel, then answers from the tool messages it got back.
 */
async function startChatCompletions() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as Received['body'];
      received.push({ headers: req.headers, body });
      const toolAnswers = body.messages.filter((m) => m.role === 'tool');
      const message =
        toolAnswers.length === 0
          ? {
              role: 'assistant',
              content: 'Computing both.',
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } },
                { id: 'call_2', type: 'function', function: { name: 'calculator', arguments: '{"expression":"3*3"}' } },
              ],
            }
          : { role: 'assistant', content: `The results: ${toolAnswers.map((m) => m.content).join(' and ')}` };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { received, baseUrl: `http://127.0.0.1:${port}/v1`, close: () => new Promise((r) => server.close(r)) };
}

describe('examples/agent.ts against an OpenAI-compatible endpoint', () => {
  it('sends the conversation and Toolscope tools, runs the parallel calls in one session, feeds the results back', async () => {
    const model = await startChatCompletions();
    try {
      const session = `real-${Date.now()}`;
      const run = runAgent(
        ['--toolscope', served.baseUrl, '--session', session, '--model', 'test-model-1', 'Add and multiply.'],
        {
          OPENAI_BASE_URL: model.baseUrl,
          OPENAI_API_KEY: 'sk-test-key',
        },
      );
      expect(await run.exited).toBe(0);
      expect(model.received).toHaveLength(2);
      const [first, second] = model.received;
      expect(first?.headers.authorization).toBe('Bearer sk-test-key');
      expect(first?.body.model).toBe('test-model-1');
      expect(first?.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(first?.body.tools.map((t) => t.function.name)).toEqual(
        expect.arrayContaining(['calculator', 'write_file']),
      );
      const tools = second?.body.messages.filter((m) => m.role === 'tool') ?? [];
      expect(tools.map((m) => [m.tool_call_id, JSON.parse(m.content ?? 'null').result])).toEqual([
        ['call_1', 4],
        ['call_2', 9],
      ]);
      expect(run.output()).toContain('model: The results:');
      const { items } = await client.listTraces({ session });
      expect(items.map((item) => item.tool_call_id).sort()).toEqual(['call_1', 'call_2']);
    } finally {
      await model.close();
    }
  }, 60_000);

  it('stops at --max-iterations with status 3', async () => {
    const model = await startChatCompletions();
    try {
      const run = runAgent(['--toolscope', served.baseUrl, '--max-iterations', '1', 'Add and multiply.'], {
        OPENAI_BASE_URL: model.baseUrl,
      });
      expect(await run.exited).toBe(3);
      expect(run.output()).toContain('stopped after 1 iterations without an answer');
    } finally {
      await model.close();
    }
  }, 60_000);
});
