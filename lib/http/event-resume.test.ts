import http from 'node:http';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { testPrincipal } from '../access/testing/principals';
import type { TraceRecord } from '../executor/types';
import { crowding } from '../hardening/testing/machine-pace';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { createHttpApp } from './app';
import { createHttpServer } from './node-server';
import { closeServer, listenOnLoopback } from './testing/listen';

/**
 * `GET /api/v1/events` on the agent path (what `npm start` serves), on a real loopback port and
 * a real SQLite file: a client that drops its connection and comes back with its last event id
 * misses nothing, whether the ring still holds what it missed or the database must say (after a
 * restart).
 */
const toolscopes = testToolscopes('toolscope-event-resume-');
const CONFIG = { policies: { run_shell: 'allow' }, shell: { allow: ['sleep'] } };

interface Frame {
  id: number | null;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read event data whose shape they assert on
  data: any;
}

async function serve(ts: Toolscope) {
  const app = createHttpApp(ts, {
    heartbeatMs: 60_000,
    next: async (_req, res) => {
      res.writeHead(404);
      res.end();
    },
  });
  const server = createHttpServer(app, ts.config.limits);
  const port = await listenOnLoopback(server);
  return {
    port,
    close: async () => {
      await closeServer(server);
    },
  };
}

/** An SSE client: the frames it got so far, parsed. */
function openStream(port: number, query = '', headers: Record<string, string> = {}) {
  let buffer = '';
  const frames: Frame[] = [];
  let encoding: string | undefined;
  let ended = false;
  const req = http.get({ host: '127.0.0.1', port, path: `/api/v1/events${query}`, headers, agent: false }, (res) => {
    encoding = res.headers['content-encoding'];
    const body = encoding === 'gzip' ? res.pipe(zlib.createGunzip()) : res;
    body.setEncoding('utf8');
    body.on('error', () => {});
    body.on('end', () => (ended = true));
    body.on('data', (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
        const event = field('event');
        if (!event) continue;
        const id = field('id');
        frames.push({ id: id === undefined ? null : Number(id), event, data: JSON.parse(field('data') ?? 'null') });
      }
    });
  });
  req.on('error', () => {});
  const events = () => frames.filter((frame) => frame.event !== 'ping');
  return {
    events,
    /** `trace-id:type` of each trace event. */
    calls: () => events().flatMap((f) => (f.event === 'trace' ? [`${f.data.trace_id}:${f.data.type}`] : [])),
    lastId: () => events().at(-1)?.id ?? null,
    async until(check: (frames: Frame[]) => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!check(events())) {
        if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(events())}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    /** Resolves once the stream is open (its first ping arrived). */
    async ready() {
      const deadline = Date.now() + 10_000;
      while (!frames.some((frame) => frame.event === 'ping')) {
        if (Date.now() > deadline) throw new Error('the stream did not open');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    drop: () => req.destroy(),
    encoding: () => encoding,
    /** Whether the body ended cleanly (for gzip: a valid trailer). */
    ended: () => ended,
  };
}

const calculate = async (ts: Toolscope, expression: string, sessionId?: string) =>
  (await ts.executor.execute({ name: 'calculator', arguments: { expression } }, { sessionId })).metadata.traceId;

const has = (calls: string[], id: string, type: string) => calls.includes(`${id}:${type}`);

/** Every id present, strictly increasing. */
function expectIncreasing(frames: Frame[], after: number) {
  let last = after;
  for (const frame of frames) {
    expect(frame.id).not.toBeNull();
    expect(frame.id!).toBeGreaterThan(last);
    last = frame.id!;
  }
}

describe('resuming GET /api/v1/events after a dropped connection', () => {
  it('replays from the ring exactly what was missed, then goes on live: nothing lost, nothing twice', async () => {
    const ts = toolscopes.start(toolscopes.dataDir(CONFIG));
    const server = await serve(ts);
    const first = openStream(server.port);
    await first.ready();
    const seen = await calculate(ts, '1 + 1');
    await first.until(() => has(first.calls(), seen, 'finish'));
    const lastId = first.lastId()!;
    first.drop();

    const missed = [await calculate(ts, '2 + 2'), await calculate(ts, '3 + 3')];
    const back = openStream(server.port, '', { 'last-event-id': String(lastId) });
    await back.until(() => missed.every((id) => has(back.calls(), id, 'finish')));
    const live = await calculate(ts, '4 + 4');
    await back.until(() => has(back.calls(), live, 'finish'));

    for (const id of [...missed, live]) {
      expect(back.calls().filter((c) => c === `${id}:begin`)).toHaveLength(1);
      expect(back.calls().filter((c) => c === `${id}:finish`)).toHaveLength(1);
    }
    expect(back.calls().some((c) => c.startsWith(seen))).toBe(false);
    expectIncreasing(back.events(), lastId);
    // Ring and live ids are even.
    for (const frame of back.events()) expect(frame.id! % 2).toBe(0);
    back.drop();
    await server.close();
  });

  it('gzips the stream for a client that accepts it: the same frames, each batch at once, a valid end', async () => {
    const ts = toolscopes.start(toolscopes.dataDir(CONFIG));
    const server = await serve(ts);
    const gzipped = openStream(server.port, '', { 'accept-encoding': 'gzip, deflate, br' });
    const plain = openStream(server.port);
    await gzipped.ready();
    await plain.ready();
    expect(gzipped.encoding()).toBe('gzip');
    expect(plain.encoding()).toBeUndefined();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await calculate(ts, `${i} * 3`));
    await gzipped.until(() => ids.every((id) => has(gzipped.calls(), id, 'finish')));
    await plain.until(() => ids.every((id) => has(plain.calls(), id, 'finish')));
    expect(gzipped.events()).toEqual(plain.events());
    // A call after a quiet spell arrives on its own, not held back by the compressor.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await calculate(ts, '7 * 6');
    // Within 2 s on the reference machine at rest, stretched by the machine's crowding.
    await gzipped.until(() => has(gzipped.calls(), late, 'finish'), 2_000 * crowding());
    // Shutdown ends the stream with the gzip trailer, which the decoder checks (CRC and length).
    await ts.stop({ by: 'shutdown' });
    await gzipped.until(() => gzipped.ended(), 5_000).catch(() => {});
    expect(gzipped.ended()).toBe(true);
    await server.close();
  });

  it('replays a large gap (megabytes) in one write without dropping the stream for being behind', async () => {
    const ts = toolscopes.start(toolscopes.dataDir(CONFIG));
    const server = await serve(ts);
    const first = openStream(server.port);
    await first.ready();
    ts.events.publish({ id: 'x', tool: 'calculator', status: 'running', sessionId: null } as TraceRecord, 'begin');
    await first.until((frames) => frames.length === 1);
    const lastId = first.lastId()!;
    first.drop();
    const missed = 9_000;
    for (let i = 0; i < missed; i++) {
      const id = `gap-${i}-${'x'.repeat(100)}`;
      ts.events.publish({ id, tool: 'calculator', status: 'running', sessionId: null } as TraceRecord, 'begin');
      if (i % 1000 === 999) ts.events.flush();
    }
    ts.events.flush();
    const back = openStream(server.port, '', { 'last-event-id': String(lastId) });
    await back.until((frames) => frames.length === missed);
    expect(ts.events.listenerCount()).toBe(1);
    expectIncreasing(back.events(), lastId);
    back.drop();
    await server.close();
  });

  it('after a restart, replays from the database what the old process did not send and the new one did meanwhile', async () => {
    const dir = toolscopes.dataDir(CONFIG);
    const ts = toolscopes.start(dir);
    const server = await serve(ts);
    const first = openStream(server.port, '?last_event_id=');
    await first.ready();
    const done = await calculate(ts, '1 + 1');
    // Running at shutdown: cancelled after the streams closed, so only the database can tell.
    const running = ts.executor.execute({ name: 'run_shell', arguments: { command: ['sleep', '5'] } });
    await first.until(() => has(first.calls(), done, 'finish') && first.calls().some((c) => c.endsWith(':stage')));
    const sleeper = first.events().find((f) => f.data.type === 'stage')!.data.trace_id as string;
    const lastId = first.lastId()!;
    await server.close();
    const restarted = await toolscopes.restart(ts, dir);
    await running;
    const again = await serve(restarted);
    const meanwhile = await calculate(restarted, '5 * 5');

    const back = openStream(again.port, `?last_event_id=${lastId}`);
    await back.until(() => has(back.calls(), sleeper, 'finish') && has(back.calls(), meanwhile, 'finish'));
    const finish = back.events().find((f) => f.data.trace_id === sleeper && f.data.type === 'finish')!;
    expect(finish.data.status).toBe('cancelled');
    expect(has(back.calls(), meanwhile, 'begin')).toBe(true);
    // Replayed from the database: odd ids, above the client's, then live (even) ones after them.
    const replayed = back.events();
    for (const frame of replayed) expect(frame.id! % 2).toBe(1);
    const live = await calculate(restarted, '6 * 6');
    await back.until(() => has(back.calls(), live, 'finish'));
    expectIncreasing(back.events(), lastId);
    expect(back.events().at(-1)!.id! % 2).toBe(0);
    back.drop();
    await again.close();
  });

  it('after a crash, replays from the database the finish of the call it left running (interrupted)', async () => {
    const dir = toolscopes.dataDir(CONFIG);
    const ts = toolscopes.start(dir);
    const server = await serve(ts);
    const first = openStream(server.port);
    await first.ready();
    const running = ts.executor.execute({ name: 'run_shell', arguments: { command: ['sleep', '1'] } });
    await first.until(() => first.calls().some((c) => c.endsWith(':stage')));
    const sleeper = first.events().find((f) => f.data.type === 'stage')!.data.trace_id as string;
    const lastId = first.lastId()!;
    await server.close();
    // The store closes under the running call, as a crash would leave it: nothing more is written.
    const error = console.error;
    console.error = () => {};
    toolscopes.crash(ts);
    const again = toolscopes.start(dir);
    await running.catch(() => {});
    console.error = error;
    const restarted = await serve(again);
    const back = openStream(restarted.port, '', { 'last-event-id': String(lastId) });
    await back.until(() => has(back.calls(), sleeper, 'finish'));
    expect(back.events().find((f) => f.data.type === 'finish')!.data.status).toBe('interrupted');
    back.drop();
    await restarted.close();
  });

  it('streams approvals, stages and fault rule changes; ?session= keeps to one session', async () => {
    const ts = toolscopes.start(toolscopes.dataDir(CONFIG));
    const server = await serve(ts);
    const all = openStream(server.port);
    const session = openStream(server.port, '?session=s-approve');
    await Promise.all([all.ready(), session.ready()]);
    const other = await calculate(ts, '1 + 1', 's-other');
    const asked = ts.executor.execute(
      { name: 'write_file', arguments: { path: 'note.txt', content: 'hi' } },
      { sessionId: 's-approve' },
    );
    await session.until((frames) => frames.some((f) => f.event === 'approval' && f.data.type === 'requested'));
    const requested = session.events().find((f) => f.event === 'approval')!;
    expect(requested.data).toMatchObject({ type: 'requested', tool: 'write_file', session_id: 's-approve' });
    const traceId = requested.data.trace_id as string;
    expect(
      ts.approvals.decide(traceId, { decision: 'deny', reason: 'not now' }, testPrincipal('tester')),
    ).toMatchObject({ ok: true });
    await asked;
    await session.until(() => has(session.calls(), traceId, 'finish'));
    const decided = session.events().find((f) => f.event === 'approval' && f.data.type === 'decided')!;
    expect(decided.data).toMatchObject({ trace_id: traceId, decision: 'denied' });
    expect(session.calls().some((c) => c.startsWith(other))).toBe(false);

    const sleeper = ts.executor.execute({ name: 'run_shell', arguments: { command: ['sleep', '0.3'] } });
    const rule = ts.faults.create({ name: 'slow', tool: 'calculator', kind: 'timeout' });
    ts.faults.delete(rule.id);
    await sleeper;
    await all.until((frames) => frames.filter((f) => f.event === 'fault_rule').length === 2);
    expect(
      all
        .events()
        .filter((f) => f.event === 'fault_rule')
        .map((f) => f.data),
    ).toEqual([
      { type: 'created', rule_id: rule.id, at: expect.any(Number) },
      { type: 'deleted', rule_id: rule.id, at: expect.any(Number) },
    ]);
    expect(all.events().some((f) => f.data.type === 'stage' && f.data.stage === 'execute')).toBe(true);
    expect(session.events().some((f) => f.event === 'fault_rule')).toBe(false);
    all.drop();
    session.drop();
    await server.close();
  });
});
