import { describe, expect, it } from 'vitest';
import { makeTrace } from '../../db/trace-store-suite';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { createHttpApp } from '../app';
import { callApp } from '../testing/call-app';

/** Deleting calls through the HTTP layer, on a real Toolscope's SQLite store. */
const toolscopes = testToolscopes('toolscope-delete-');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

function start() {
  const ts = toolscopes.start(toolscopes.dataDir());
  const app = createHttpApp(ts);
  const del = async (path: string) => {
    const response = await callApp(app, 'DELETE', path);
    return { status: response.status, json: (await response.json()) as Json };
  };
  return { ts, store: ts.store, del };
}

describe('DELETE /api/v1/traces/:id', () => {
  it('deletes a finished call, then answers 404; refuses a running one with 409', async () => {
    const { store, del } = start();
    const done = makeTrace({ tool: 'read_file' });
    const running = makeTrace({ tool: 'read_file', status: 'running', finishedAt: null });
    store.finish(done);
    store.begin(running);

    const response = await del(`/api/v1/traces/${done.id}`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ deleted: 1 });
    expect(store.get(done.id)).toBeNull();

    const again = await del(`/api/v1/traces/${done.id}`);
    expect(again.status).toBe(404);
    expect(again.json.error.code).toBe('NOT_FOUND');

    const refused = await del(`/api/v1/traces/${running.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('STILL_RUNNING');
    expect(store.get(running.id)?.status).toBe('running');
    // The catalog counts follow the deletion.
    expect(store.toolStats()).toMatchObject([{ tool: 'read_file', calls: 1 }]);
  });
});

describe('DELETE /api/v1/sessions/:id', () => {
  it('deletes the finished calls of a session and reports the unfinished ones kept', async () => {
    const { store, del } = start();
    store.finish(makeTrace({ sessionId: 'agent-1', status: 'failed' }));
    store.finish(makeTrace({ sessionId: 'agent-1' }));
    store.begin(makeTrace({ sessionId: 'agent-1', status: 'awaiting_approval', finishedAt: null }));
    store.finish(makeTrace({ sessionId: 'agent-2' }));

    const response = await del('/api/v1/sessions/agent-1');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ deleted: 2, skipped_running: 1 });
    expect(store.list({ sessionId: 'agent-2' }).items).toHaveLength(1);
    expect(store.toolStats()).toMatchObject([{ tool: 'calculator', calls: 2, failures: 0 }]);

    const unknown = await del('/api/v1/sessions/nobody');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('NOT_FOUND');
  });
});
