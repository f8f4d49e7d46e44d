import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { startMcpTestServer } from '../mcp/server/testing/mcp-test-server';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { appOf, callApp, type Json } from './testing/call-app';

/**
 * Fail soft, through the whole HTTP chain of a real Toolscope: while another process holds the
 * database's write lock (`BEGIN IMMEDIATE`), reads answer 200 from what is committed, calls are
 * answered and kept in memory, and once `limits.maxQueuedWrites` wait, new calls — over the API,
 * replays and MCP — are refused 503 STORE_UNAVAILABLE with `Retry-After` before anything runs.
 * Once the lock goes, everything answered is stored.
 */
const toolscopes = testToolscopes('toolscope-store-faults-');
let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => errors.mockRestore());

async function send(ts: Toolscope, method: string, url: string, body?: unknown) {
  const response = await callApp(appOf(ts), method, url, { body });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Json };
}

let callCount = 0;
function toolCall(name: string, args: object) {
  callCount += 1;
  return {
    tool_calls: [{ id: `call_${callCount}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  };
}

/** Polls until `check` passes (the store's retry runs on real timers: at most 2 s apart). */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a database locked by another process', () => {
  it('answers reads 200, refuses new calls 503 STORE_UNAVAILABLE once the queue is full, and stores every answered call after', async () => {
    const dir = toolscopes.dataDir({ limits: { maxQueuedWrites: 2 }, permissions: { allow: ['write_file'] } });
    const ts = toolscopes.start(dir);
    const before = await send(ts, 'POST', '/api/v1/tool-calls', toolCall('calculator', { expression: '1 + 1' }));
    expect(before.status).toBe(200);
    const committedId: string = before.json.results[0].trace_id;

    const other = new Database(path.join(dir, 'toolscope.db'));
    other.exec('BEGIN IMMEDIATE');
    let mcp: Awaited<ReturnType<typeof startMcpTestServer>> | undefined;
    try {
      // Calls are still answered while the queue has room; their records wait in memory.
      const answered: string[] = [];
      for (const expression of ['2 + 2', '3 + 3']) {
        const during = await send(ts, 'POST', '/api/v1/tool-calls', toolCall('calculator', { expression }));
        expect(during.status).toBe(200);
        expect(during.json.results[0].success).toBe(true);
        answered.push(during.json.results[0].trace_id);
      }

      // Reads answer 200 from what is committed.
      const list = await send(ts, 'GET', '/api/v1/traces');
      expect(list.status).toBe(200);
      expect(list.json.items.map((item: Json) => item.id)).toEqual([committedId]);
      for (const url of [
        `/api/v1/traces/${committedId}`,
        '/api/v1/sessions',
        '/api/v1/approvals',
        '/api/v1/stats',
        '/api/v1/tools/calculator/stats',
        '/api/v1/tools',
      ]) {
        expect((await send(ts, 'GET', url)).status, url).toBe(200);
      }
      const health = await send(ts, 'GET', '/api/v1/health');
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({
        status: 'degraded',
        store: { status: 'degraded', queued: 2, last_error: { code: 'SQLITE_BUSY', message: 'database is locked' } },
      });

      // The queue is full: a new call is refused whole, before its tool runs.
      const refused = await send(
        ts,
        'POST',
        '/api/v1/tool-calls',
        toolCall('write_file', { path: 'refused.txt', content: 'never written' }),
      );
      expect(refused.status).toBe(503);
      expect(refused.json.error.code).toBe('STORE_UNAVAILABLE');
      expect(refused.json.error.message).toMatch(/cannot record calls right now.*SQLITE_BUSY/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(fs.existsSync(path.join(ts.config.workspace, 'refused.txt'))).toBe(false);

      // So is a replay,
      const replay = await send(ts, 'POST', `/api/v1/traces/${committedId}/replay`);
      expect(replay.status).toBe(503);
      expect(replay.json.error.code).toBe('STORE_UNAVAILABLE');
      expect(replay.headers.get('retry-after')).not.toBeNull();

      // and an MCP tools/call, as a failed result that says why.
      mcp = await startMcpTestServer(ts);
      const { client } = await mcp.connect();
      const viaMcp = await client.callTool({ name: 'write_file', arguments: { path: 'mcp.txt', content: 'no' } });
      expect(viaMcp.isError).toBe(true);
      expect(JSON.stringify(viaMcp.content)).toMatch(/cannot record calls right now/);
      expect(fs.existsSync(path.join(ts.config.workspace, 'mcp.txt'))).toBe(false);

      // Other writes (a fault rule) answer 503 with Retry-After too, never 500.
      const rule = await send(ts, 'POST', '/api/v1/faults', { name: 'x', tool: 'calculator', kind: 'timeout' });
      expect(rule.status).toBe(503);
      expect(rule.json.error.code).toBe('STORE_UNAVAILABLE');
      expect(rule.headers.get('retry-after')).toBe('1');

      // The lock goes: the retry stores every answered call, and calls run again.
      other.exec('COMMIT');
      await eventually(async () => (await send(ts, 'GET', '/api/v1/health')).json.status === 'ok');
      const after = await send(ts, 'GET', '/api/v1/traces');
      expect(after.json.items.map((item: Json) => item.id).sort()).toEqual([committedId, ...answered].sort());
      const written = await send(
        ts,
        'POST',
        '/api/v1/tool-calls',
        toolCall('write_file', { path: 'after.txt', content: 'written' }),
      );
      expect(written.status).toBe(200);
      expect(fs.readFileSync(path.join(ts.config.workspace, 'after.txt'), 'utf8')).toBe('written');
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
      await mcp?.close();
    }
  });
});
