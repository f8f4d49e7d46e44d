import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, serverPid, startBuiltServer } from '../server/testing/built-server';
import { crowding } from './testing/machine-pace';
import { processesWith, waitUntil } from './testing/processes';

// The built server (scripts/start.mjs) under a steady stream of calls of every kind, killed with
// SIGKILL mid-stream, then started again on the same data folder. What lib/db/crash-durability
// and lib/agent-path/http-crash check for calculator calls (every answer stored), here for the
// calls with something outside the database: running programs, files written, calls waiting
// for a person.

// biome-ignore lint/suspicious/noExplicitAny: JSON answers whose shape the test asserts on
type Json = any;

const built = await hasCurrentBuild('crash-safety');
/** In every program's command line: `sleep 0.05<M>` runs 50 ms, `sleep 4000.<M>` until killed. */
const MARKER = String(Math.floor(Math.random() * 9e8) + 1e8);
const CONFIG = {
  policies: { calculator: 'allow', write_file: 'allow', run_shell: 'allow' },
  permissions: { ask: ['run_shell(echo *)'] },
  shell: { allow: ['sleep', 'echo'] },
  approvals: { timeoutMs: 3_600_000 },
};

interface Answered {
  traceId: string;
  status: string;
  output: unknown;
  errorCode: string | null;
}

let first: BuiltServer | null = null;
let second: BuiltServer | null = null;

afterAll(() => {
  // Both started in process groups of their own; the data folder goes with the second.
  for (const server of [first, second]) {
    if (server?.child.pid && server.child.exitCode === null && server.child.signalCode === null) {
      try {
        process.kill(-server.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  second?.stop();
  if (first) fs.rmSync(first.dir, { recursive: true, force: true });
});

async function post(base: string, body: unknown): Promise<Json> {
  const response = await fetch(`${base}/api/v1/tool-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return response.json();
}

/** `sleep <marker>` processes (bubblewrap's own command line names the marker too). */
const sleepers = (marker: string) => processesWith(marker).filter(({ cmdline }) => cmdline.startsWith('sleep ')).length;

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe.skipIf(!built)('crash safety: SIGKILL of the built server mid-stream, then a restart', () => {
  /** Answered calls, by request session. */
  const answered = new Map<string, Answered>();
  /** Sessions of requests sent and never answered (the kill cut them). */
  const unanswered = new Set<string>();
  /** Calls answered `awaiting_approval`: must still be pending after the restart. */
  const pending = new Set<string>();
  /** Files whose write was answered `succeeded`, with their content. */
  const written = new Map<string, string>();
  /** Sessions of long programs seen running before the kill. */
  const longRunning = new Set<string>();
  let leftAfterKillMs = Number.NaN;

  beforeAll(async () => {
    first = await startBuiltServer('toolscope-crash-safety-', CONFIG);
    const { base, dir } = first;
    const victim = serverPid(first.child.pid as number);
    let n = 0;
    let killed = false;
    const send = async (session: string, calls: unknown[], wait = true) => {
      unanswered.add(session);
      let json: Json;
      try {
        json = await post(base, { session_id: session, tool_calls: calls, wait });
      } catch (error) {
        if (killed) return null;
        throw error;
      }
      unanswered.delete(session);
      const [result] = json.results;
      answered.set(session, {
        traceId: result.trace_id,
        status: result.status,
        output: result.output,
        errorCode: result.error?.code ?? null,
      });
      return result;
    };
    const longSessions: string[] = [];
    const client = async () => {
      while (!killed) {
        n += 1;
        const id = n;
        const session = `crash-${id}`;
        const kind = id % 5;
        if (kind === 0) {
          await send(session, [call(`c${id}`, 'calculator', { expression: `${id} * 3` })]);
        } else if (kind === 1) {
          const file = `w/${id}.txt`;
          const result = await send(session, [call(`c${id}`, 'write_file', { path: file, content: `write ${id}\n` })]);
          if (result?.status === 'succeeded') written.set(file, `write ${id}\n`);
        } else if (kind === 2) {
          const result = await send(
            session,
            [call(`c${id}`, 'run_shell', { command: ['echo', 'ask', String(id)] })],
            false,
          );
          if (result?.status === 'awaiting_approval') pending.add(result.trace_id);
        } else if (kind === 3) {
          await send(session, [call(`c${id}`, 'run_shell', { command: ['sleep', `0.05${MARKER}`] })]);
        } else if (longSessions.length < 8) {
          // Never answered: it runs until the kill. Not awaited, so the stream goes on.
          longSessions.push(session);
          void send(session, [call(`c${id}`, 'run_shell', { command: ['sleep', `4000.${MARKER}`] })]);
        }
      }
    };
    const clients = Array.from({ length: 6 }, client);
    await waitUntil(
      () => answered.size >= 300 && longSessions.length === 8 && sleepers(`4000.${MARKER}`) === 8,
      60_000,
    );
    // Every long program is running: each is in a pid namespace of its own, with its session known.
    for (const session of longSessions) longRunning.add(session);
    killed = true;
    process.kill(victim, 'SIGKILL');
    const killedAt = performance.now();
    await waitUntil(() => processesWith(MARKER).length === 0, 2_000).catch(() => {});
    leftAfterKillMs = processesWith(MARKER).length === 0 ? performance.now() - killedAt : Number.POSITIVE_INFINITY;
    await Promise.all(clients);
    // scripts/start.mjs exits when its server does.
    await waitUntil(() => first?.child.exitCode !== null || first?.child.signalCode !== null, 10_000);
    second = await startBuiltServer('toolscope-crash-safety-', CONFIG, {}, dir);
  }, 180_000);

  it('kills every program the server started, setsid or not, within a second of its death', () => {
    expect(first?.log()).toContain(
      '[toolscope] run_shell: programs run in a bubblewrap sandbox (workspace only, no network)',
    );
    // A second on the reference machine at rest; the bound stretches by the machine's crowding.
    expect(leftAfterKillMs).toBeLessThan(1_000 * crowding());
    expect(processesWith(MARKER)).toEqual([]);
  });

  it('keeps every answered call, finalized with the status and result it was answered with', async () => {
    expect(answered.size).toBeGreaterThanOrEqual(300);
    const statuses = new Set([...answered.values()].map((a) => a.status));
    expect(statuses).toEqual(new Set(['succeeded', 'awaiting_approval']));
    const changed: string[] = [];
    for (const [session, a] of answered) {
      const { status, json } = (await second?.send('GET', `/api/v1/traces/${a.traceId}`)) ?? {};
      const same =
        status === 200 &&
        json.status === a.status &&
        JSON.stringify(json.result?.output ?? null) === JSON.stringify(a.output ?? null) &&
        (json.result?.error?.code ?? null) === a.errorCode;
      if (!same)
        changed.push(
          `${session} ${a.traceId}: answered ${a.status} ${JSON.stringify(a.output)} ${a.errorCode}, stored ${json?.status ?? status} ${JSON.stringify(json?.result?.output)} ${json?.result?.error?.code}`,
        );
    }
    expect(changed).toEqual([]);
  });

  it('marks every program running at the kill interrupted, and leaves no call running', async () => {
    expect(longRunning.size).toBe(8);
    for (const session of longRunning) {
      const { json } = (await second?.send('GET', `/api/v1/traces?session=${session}`)) ?? {};
      expect(json.items.map((t: Json) => t.status)).toEqual(['interrupted']);
    }
    for (const session of unanswered) {
      const { json } = (await second?.send('GET', `/api/v1/traces?session=${session}`)) ?? {};
      for (const trace of json.items) expect(trace.status, session).not.toBe('running');
    }
    const running = await second?.send('GET', '/api/v1/traces?status=running');
    expect(running?.json.items).toEqual([]);
  });

  it('keeps the calls awaiting approval pending', async () => {
    expect(pending.size).toBeGreaterThan(10);
    const { json } = (await second?.send('GET', '/api/v1/approvals')) ?? {};
    const listed = new Set(json.approvals.map((a: Json) => a.trace_id));
    expect([...pending].filter((id) => !listed.has(id))).toEqual([]);
  });

  it('has every acknowledged write on disk', () => {
    expect(written.size).toBeGreaterThan(10);
    const workspace = path.join(second?.dir ?? '', 'workspace');
    const missing = [...written].filter(([file, content]) => {
      const text = fs.existsSync(path.join(workspace, file))
        ? fs.readFileSync(path.join(workspace, file), 'utf8')
        : null;
      return text !== content;
    });
    expect(missing).toEqual([]);
  });

  it('leaves a database that passes PRAGMA integrity_check', () => {
    const db = new Database(path.join(second?.dir ?? '', 'toolscope.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});
