import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../../server/testing/built-server';

/**
 * Export and import as `npm start` serves them (the HTTP layer's one app on Node's server, in
 * front of Next's pages), over real HTTP: the message sent with a batch shows on the trace, and a
 * large file passes whole (the import's own body limit, above every other route's).
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('export-import.built-server.test');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

describe.skipIf(!built)('the built server: assistant_message, export and import', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-import-built-');
  }, 90_000);

  afterAll(() => server?.stop());

  it('keeps the message of a request, exports the session, and imports a 20 MB file whole', async () => {
    const call = await server.send('POST', '/api/v1/tool-calls', {
      session_id: 'built-why',
      assistant_message: { text: 'Adding one and one.', model: 'gpt-built' },
      tool_calls: [{ id: 'b1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } }],
    });
    expect(call.status).toBe(200);
    const traceId = call.json.results[0].trace_id;
    const trace = await server.send('GET', `/api/v1/traces/${traceId}`);
    expect(trace.json.assistant_message).toEqual({ text: 'Adding one and one.', model: 'gpt-built', truncated: false });

    const file = await server.send('GET', '/api/v1/sessions/built-why/export');
    expect(file.status).toBe(200);
    const big: Json = structuredClone(file.json);
    big.session_id = 'built-big';
    big.traces[0].id = 'built-big-1';
    big.traces[0].session_id = 'built-big';
    big.traces[0].result.output = { padding: 'x'.repeat(20 * 1024 * 1024) };
    const imported = await server.send('POST', '/api/v1/import', big);
    expect(imported.status).toBe(201);
    expect(imported.json).toEqual({
      kind: 'session',
      session_id: 'built-big',
      renamed_from: null,
      trace_ids: ['built-big-1'],
      imported: 1,
    });
    const copy = await server.send('GET', '/api/v1/traces/built-big-1');
    expect(copy.json.result.output.padding).toHaveLength(20 * 1024 * 1024);
    expect(copy.json).toMatchObject({ imported: true, assistant_message: { model: 'gpt-built' } });
  }, 60_000);
});
