import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteTraceStore } from '../db/sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from '../db/test-database';
import type { TraceStore } from '../db/trace-store';
import { makeTrace } from '../db/trace-store-suite';
import { createVault } from '../db/vault';
import { deleteSession, deleteTrace } from './delete-traces';

const temp = createTempDataDir('toolscope-delete-');
afterAll(() => temp.remove());

let store: TraceStore;
let count = 0;
beforeEach(() => {
  const dir = path.join(temp.dir, `case-${++count}`);
  store = createSqliteTraceStore({ db: openTestDatabase(dir), vault: createVault({ dir }) });
});
afterEach(() => store.close());

describe('DELETE /api/v1/traces/:id', () => {
  it('deletes a finished call, then answers 404; refuses a running one with 409', async () => {
    const done = makeTrace({ tool: 'read_file' });
    const running = makeTrace({ tool: 'read_file', status: 'running', finishedAt: null });
    store.finish(done);
    store.begin(running);

    const response = await deleteTrace(done.id, { store });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ deleted: 1 });
    expect(store.get(done.id)).toBeNull();

    const again = await deleteTrace(done.id, { store });
    expect(again.status).toBe(404);
    expect((await again.json()).error.code).toBe('NOT_FOUND');

    const refused = await deleteTrace(running.id, { store });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe('STILL_RUNNING');
    expect(store.get(running.id)?.status).toBe('running');
    // The catalog counts follow the deletion.
    expect(store.toolStats()).toMatchObject([{ tool: 'read_file', calls: 1 }]);
  });
});

describe('DELETE /api/v1/sessions/:id', () => {
  it('deletes the finished calls of a session and reports the unfinished ones kept', async () => {
    store.finish(makeTrace({ sessionId: 'agent-1', status: 'failed' }));
    store.finish(makeTrace({ sessionId: 'agent-1' }));
    store.begin(makeTrace({ sessionId: 'agent-1', status: 'awaiting_approval', finishedAt: null }));
    store.finish(makeTrace({ sessionId: 'agent-2' }));

    const response = await deleteSession('agent-1', { store });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ deleted: 2, skipped_running: 1 });
    expect(store.list({ sessionId: 'agent-2' }).items).toHaveLength(1);
    expect(store.toolStats()).toMatchObject([{ tool: 'calculator', calls: 2, failures: 0 }]);

    const unknown = await deleteSession('nobody', { store });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('NOT_FOUND');
  });
});
