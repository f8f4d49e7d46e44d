import { describe, expect, it, vi } from 'vitest';
import { EXPORT_FORMAT, EXPORT_VERSION, IMPORT_MAX_BYTES } from '../../api/export-import';
import { ASSISTANT_TEXT_MAX_BYTES } from '../../calls/assistant-message';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

/**
 * The "why" of a batch (`assistant_message`), export of a trace or a session, and import into
 * another Toolscope, through the HTTP layer's app — real Toolscopes on their own data folders,
 * SQLite and the executor.
 */
const toolscopes = testToolscopes('toolscope-export-import-');

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read in tests
type Json = Record<string, any>;

const SECRET_KEY = 'sk-live-0123456789abcdefghijSECRET';

/** Local mode's one person: who every request here acts as. */
const LOCAL = { id: 'local', name: 'local', role: 'admin' };

/** The app of each Toolscope (a restarted one gets its own). */
const apps = new WeakMap<Toolscope, HttpApp>();
function appOf(ts: Toolscope): HttpApp {
  let app = apps.get(ts);
  if (!app) {
    app = createHttpApp(ts);
    apps.set(ts, app);
  }
  return app;
}

/** A request to `ts`'s app, with `body` as JSON when given (a string as it is: a file's text). */
const send = (ts: Toolscope, method: string, path: string, body?: unknown): Promise<Response> =>
  callApp(appOf(ts), method, path, { body });

function start(): { ts: Toolscope; dir: string } {
  const dir = toolscopes.dataDir();
  return { ts: toolscopes.start(dir), dir };
}

const calc = (id: string, expression: string) => ({
  id,
  type: 'function',
  function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
});

/** `POST /api/v1/tool-calls`: its status and JSON answer. */
async function runToolCalls(body: unknown, ts: Toolscope): Promise<{ status: number; body: Json }> {
  const response = await send(ts, 'POST', '/api/v1/tool-calls', body);
  return { status: response.status, body: await response.json() };
}

async function trace(ts: Toolscope, id: string): Promise<Json> {
  const response = await send(ts, 'GET', `/api/v1/traces/${id}`);
  expect(response.status).toBe(200);
  return response.json();
}

async function importFile(ts: Toolscope, body: unknown): Promise<{ status: number; json: Json }> {
  const response = await send(ts, 'POST', '/api/v1/import', body);
  return { status: response.status, json: await response.json() };
}

async function listAll(ts: Toolscope, query = ''): Promise<Json[]> {
  const response = await send(ts, 'GET', `/api/v1/traces?limit=500${query}`);
  return (await response.json()).items;
}

/** Runs `request` with the clock at `time` (Date only: timers and the event loop run as ever). */
async function at<T>(time: string, request: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(time) });
  try {
    return await request();
  } finally {
    vi.useRealTimers();
  }
}

/** `GET /api/v1/sessions/:id/export` (200) as its JSON. */
async function exportSession(ts: Toolscope, sessionId: string): Promise<Json> {
  const response = await send(ts, 'GET', `/api/v1/sessions/${sessionId}/export`);
  expect(response.status).toBe(200);
  return response.json();
}

/** Runs a session of three calls in two requests, the first with a message; returns the export file. */
async function recordSession(ts: Toolscope, sessionId: string): Promise<Json> {
  const first = await runToolCalls(
    {
      session_id: sessionId,
      assistant_message: { text: `Adding both, my key is ${SECRET_KEY}`, model: 'gpt-test-1' },
      tool_calls: [calc('a1', '1+1'), calc('a2', '2*3')],
    },
    ts,
  );
  expect(first.status).toBe(200);
  const second = await runToolCalls({ session_id: sessionId, tool_calls: [calc('a3', '1/(')] }, ts);
  expect(second.status).toBe(200);
  return at('2026-11-30T08:00:00Z', () => exportSession(ts, sessionId));
}

describe('assistant_message on POST /api/v1/tool-calls', () => {
  it('stores it once for the batch, redacted, and shows it on each of its traces (OpenAI form)', async () => {
    const { ts } = start();
    const answer = await runToolCalls(
      {
        session_id: 'why-1',
        assistant_message: { text: `Let me compute both. Authorization: Bearer ${SECRET_KEY}`, model: 'gpt-4.1' },
        tool_calls: [calc('c1', '1+2'), calc('c2', '3+4')],
      },
      ts,
    );
    const ids = answer.body.results.map((r: Json) => r.trace_id);
    const [one, two] = await Promise.all(ids.map((id: string) => trace(ts, id)));
    expect(one.assistant_message).toEqual({
      text: 'Let me compute both. Authorization: [REDACTED]',
      model: 'gpt-4.1',
      truncated: false,
    });
    expect(two.assistant_message).toEqual(one.assistant_message);
    expect(two.batch_id).toBe(one.batch_id);
    expect(JSON.stringify(one)).not.toContain(SECRET_KEY);
    // One row for the batch, whatever the number of its calls.
    expect(ts.store.assistantMessages([one.batch_id]).size).toBe(1);
  });

  it('takes a bare string in the Anthropic form as the text', async () => {
    const { ts } = start();
    const answer = await runToolCalls(
      {
        assistant_message: 'I will check the sum.',
        tool_use: [{ type: 'tool_use', id: 'tu1', name: 'calculator', input: { expression: '5+5' } }],
      },
      ts,
    );
    expect(answer.status).toBe(200);
    const traceId = answer.body.results[0].trace_id;
    expect((await trace(ts, traceId)).assistant_message).toEqual({
      text: 'I will check the sum.',
      model: null,
      truncated: false,
    });
  });

  it('cuts a long text to 16 KiB and says so; a request without a message writes no row', async () => {
    const { ts } = start();
    const long = `${'é'.repeat(ASSISTANT_TEXT_MAX_BYTES)}end`;
    const cut = await runToolCalls({ assistant_message: { text: long }, tool_calls: [calc('l1', '1')] }, ts);
    const message = (await trace(ts, cut.body.results[0].trace_id)).assistant_message;
    expect(message.truncated).toBe(true);
    expect(Buffer.byteLength(message.text, 'utf8')).toBeLessThanOrEqual(ASSISTANT_TEXT_MAX_BYTES);
    expect(message.text).toBe('é'.repeat(ASSISTANT_TEXT_MAX_BYTES / 2));

    const bare = await runToolCalls({ tool_calls: [calc('n1', '1')] }, ts);
    const without = await trace(ts, bare.body.results[0].trace_id);
    expect(without.assistant_message).toBeNull();
    expect(ts.store.assistantMessages([without.batch_id]).size).toBe(0);
    const empty = await runToolCalls({ assistant_message: null, tool_calls: [calc('n2', '1')] }, ts);
    expect((await trace(ts, empty.body.results[0].trace_id)).assistant_message).toBeNull();
  });

  it('refuses a bad shape with a 400 naming the field, and runs nothing', async () => {
    const { ts } = start();
    const cases: [unknown, string][] = [
      [{ text: 3 }, 'assistant_message.text'],
      [{ model: 'm'.repeat(201) }, 'assistant_message.model'],
      [{ content: 'hi' }, 'assistant_message: Unrecognized key'],
      [42, 'assistant_message'],
    ];
    for (const [assistant_message, named] of cases) {
      const answer = await runToolCalls({ assistant_message, tool_calls: [calc('bad', '1')] }, ts);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain(named);
    }
    expect(await listAll(ts)).toEqual([]);
  });
});

describe('export', () => {
  it('exports one trace as a file: format, version, kind, the trace with its message; 404 for an unknown id', async () => {
    const { ts } = start();
    const file = await recordSession(ts, 'exp-1');
    const first = file.traces[0];
    const response = await at('2026-11-30T08:00:00Z', () => send(ts, 'GET', `/api/v1/traces/${first.id}/export`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="toolscope-trace-.+\.json"$/);
    const one = await response.json();
    expect(one).toMatchObject({
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exported_at: '2026-11-30T08:00:00.000Z',
      toolscope_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      kind: 'trace',
      session_id: 'exp-1',
    });
    // The file holds the trace as recorded: not the server's clock, the live replays or the
    // preview the API derives for a reader.
    const { server_time: _time, preview: _preview, replays_in_flight: _flight, ...asApi } = await trace(ts, first.id);
    expect(one.traces).toEqual([asApi]);
    for (const path of ['/api/v1/traces/nope/export', '/api/v1/sessions/nope/export']) {
      const missing = await send(ts, 'GET', path);
      expect(missing.status, path).toBe(404);
      expect((await missing.json()).error.code).toBe('NOT_FOUND');
    }
  });

  it('exports a session in the order its calls began, redacted, never the sealed arguments', async () => {
    const { ts } = start();
    const file = await recordSession(ts, 'exp-2');
    expect(file).toMatchObject({ kind: 'session', session_id: 'exp-2' });
    expect(file.traces.map((t: Json) => [t.tool_call_id, t.session_seq])).toEqual([
      ['a1', 1],
      ['a2', 2],
      ['a3', 3],
    ]);
    expect(file.traces[0].assistant_message).toEqual({
      text: 'Adding both, my key is [REDACTED]',
      model: 'gpt-test-1',
      truncated: false,
    });
    expect(file.traces[2].assistant_message).toBeNull();
    expect(JSON.stringify(file)).not.toContain(SECRET_KEY);
  });
});

describe('import', () => {
  it('imports an exported session into another Toolscope: the same traces, marked imported, read-only', async () => {
    const source = start().ts;
    const file = await recordSession(source, 'imp-1');
    const target = start().ts;
    const imported = await importFile(target, file);
    expect(imported.status).toBe(201);
    expect(imported.json).toEqual({
      kind: 'session',
      session_id: 'imp-1',
      renamed_from: null,
      trace_ids: file.traces.map((t: Json) => t.id),
      imported: 3,
    });
    for (const original of file.traces) {
      const {
        server_time: _time,
        preview: _preview,
        replays_in_flight: _flight,
        ...copy
      } = await trace(target, original.id);
      // All but who made the call: the file says, but the import's schema has no `principal` and
      // drops it (suspected bug, reported with this port). Pinned so that a fix shows here.
      expect(original.principal).toEqual(LOCAL);
      expect(copy).toEqual({ ...original, imported: true, principal: null });
    }
    const listed = await listAll(target, '&session=imp-1');
    expect(listed.map((row) => [row.tool_call_id, row.imported])).toEqual([
      ['a3', true],
      ['a2', true],
      ['a1', true],
    ]);
    // Nothing to run again, nothing to cancel.
    const id = file.traces[0].id;
    expect(target.store.openSealedArguments(id)).toBeNull();
    for (const response of [
      await send(target, 'POST', `/api/v1/traces/${id}/replay`, {}),
      await send(target, 'POST', `/api/v1/traces/${id}/cancel`, {}),
      await send(target, 'POST', '/api/v1/sessions/imp-1/replay', {}),
    ]) {
      expect(response.status).toBe(409);
      expect((await response.json()).error.code).toBe('IMPORTED_TRACE');
    }
    // And it exports again as it came in.
    const again = await exportSession(target, 'imp-1');
    expect(again.traces).toEqual(file.traces.map((t: Json) => ({ ...t, imported: true, principal: null })));
  });

  it("bounds an imported trace's errors and failed stage details as recorded ones are", async () => {
    const source = start().ts;
    const file = await recordSession(source, 'imp-big');
    const [first] = file.traces;
    const huge = {
      code: 'UPSTREAM_TOOL_ERROR',
      message: 'm'.repeat(5_000_000),
      retryable: false,
      kind: 'business',
      details: { blocks: Array.from({ length: 100_000 }, (_, i) => ({ type: 'image', bytes: i })) },
    };
    first.status = 'failed';
    first.result = { success: false, output: null, error: huge, latency_ms: 1 };
    first.stages[3] = { ...first.stages[3], status: 'failed', detail: 'd'.repeat(5_000_000) };
    const target = start().ts;
    const imported = await importFile(target, {
      ...file,
      traces: [first],
      kind: 'trace',
      session_id: first.session_id,
    });
    expect(imported.status).toBe(201);
    const copy = await trace(target, first.id);
    expect(copy.result.error.message).toContain('[truncated ');
    expect(JSON.stringify(copy.result.error).length).toBeLessThan(40_000);
    expect(copy.result.error.details.details_truncated).toBeDefined();
    expect(copy.stages[3].detail.length).toBeLessThanOrEqual(16_000);
  });

  it('refuses ids already stored with a 409 naming the trace, and imports nothing of the file', async () => {
    const source = start().ts;
    const file = await recordSession(source, 'imp-2');
    const target = start().ts;
    const only = { ...file, kind: 'trace', traces: [file.traces[1]] };
    expect((await importFile(target, only)).status).toBe(201);
    const again = await importFile(target, file);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'ALREADY_EXISTS', details: { trace_id: file.traces[1].id } });
    expect(again.json.error.message).toContain(file.traces[1].id);
    expect((await listAll(target)).map((row) => row.id)).toEqual([file.traces[1].id]);
  });

  it('refuses a newer or older version by name, and a file that is not an export', async () => {
    const target = start().ts;
    const file = await recordSession(start().ts, 'imp-3');
    const newer = await importFile(target, { ...file, version: 2 });
    expect(newer.status).toBe(400);
    expect(newer.json.error).toMatchObject({
      code: 'UNSUPPORTED_VERSION',
      message: 'This file was exported by a newer Toolscope (format version 2); this one reads version 1.',
    });
    const older = await importFile(target, { ...file, version: 0 });
    expect(older.json.error.message).toContain('an older Toolscope (format version 0)');
    const other = await importFile(target, { format: 'har', version: 1 });
    expect(other.json.error).toMatchObject({ code: 'INVALID_IMPORT' });
    expect(other.json.error.message).toContain('format: expected "toolscope-export"');
    const array = await importFile(target, [1, 2]);
    expect(array.json.error.message).toContain('body: expected a Toolscope export file');
    const notJson = await importFile(target, '{"format": ');
    expect(notJson.status).toBe(400);
    expect(notJson.json.error).toMatchObject({
      code: 'INVALID_JSON',
      message: expect.stringMatching(/^The file is not valid JSON/),
    });
    expect(await listAll(target)).toEqual([]);
  });

  it('refuses a malformed file naming the first bad path, lists the problems, and keeps nothing', async () => {
    const target = start().ts;
    const file = await recordSession(start().ts, 'imp-4');
    const broken = structuredClone(file);
    broken.traces[1].status = 'exploded';
    delete broken.traces[2].created_at;
    const refused = await importFile(target, broken);
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('INVALID_IMPORT');
    expect(refused.json.error.message).toMatch(/^Not a valid Toolscope export: traces\.1\.status: /);
    expect(refused.json.error.details.errors.map((e: Json) => e.path)).toEqual([
      'traces.1.status',
      'traces.2.created_at',
    ]);
    // The first trace was valid: all or nothing.
    expect(await listAll(target)).toEqual([]);

    const mixed = structuredClone(file);
    mixed.traces[2].session_id = 'another';
    const wrongSession = await importFile(target, mixed);
    expect(wrongSession.json.error.message).toContain('traces.2.session_id');
    const ancient = structuredClone(file);
    ancient.traces[0].finished_at = '1969-12-31T23:59:59.000Z';
    expect((await importFile(target, ancient)).json.error.message).toMatch(
      /traces\.0\.finished_at: a time before 1970/,
    );
    const twice = { ...file, traces: [file.traces[0], file.traces[0]] };
    expect((await importFile(target, twice)).json.error.message).toContain('traces.1.id');
    expect(await listAll(target)).toEqual([]);
  });

  it('answers 413 past the size limit', async () => {
    const target = start().ts;
    const response = await send(target, 'POST', '/api/v1/import', `"${'x'.repeat(IMPORT_MAX_BYTES)}"`);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('keeps an imported call that awaited approval as imported across a restart: not taken up, not interrupted', async () => {
    const { ts: source } = start();
    const answer = await runToolCalls(
      {
        session_id: 'imp-5',
        wait: false,
        tool_calls: [
          { id: 'w1', type: 'function', function: { name: 'write_file', arguments: '{"path":"x.txt","content":"y"}' } },
        ],
      },
      source,
    );
    expect(answer.body.results[0].status).toBe('awaiting_approval');
    const file = await exportSession(source, 'imp-5');
    expect(file.traces[0].status).toBe('awaiting_approval');

    const { ts: target, dir } = start();
    expect((await importFile(target, file)).status).toBe(201);
    const again = await toolscopes.restart(target, dir);
    expect(again.resumedAtStart).toBe(0);
    expect(again.interruptedAtStart).toBe(0);
    expect(again.store.get(file.traces[0].id)).toMatchObject({ status: 'awaiting_approval', imported: true });
    expect(again.approvals.list()).toEqual([]);
  });
});
