import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallStatus, TraceRecord } from '../executor/types';
import { SEARCHED_TEXT_CHARS } from './search-index';
import {
  INTERRUPTED_ERROR,
  InvalidCursorError,
  type StoredTrace,
  type TraceQuery,
  type TraceStore,
} from './trace-store';

let fixtureCount = 0;

/**
 * What a read returns for a written record: everything but the sealed arguments, plus the place
 * in its session the store gave it (`sessionSeq`: any number when not given here; null without a session).
 */
export function stored(record: TraceRecord, sessionSeq?: number): StoredTrace {
  const { rawArguments: _raw, rawEditedArguments: _rawEdited, ...rest } = record;
  return { ...rest, sessionSeq: record.sessionId === null ? null : (sessionSeq ?? expect.any(Number)) };
}

/**
 * A complete, valid trace record: a succeeded call to `calculator` with two stages and one
 * attempt. Override any field; ids are unique per call.
 */
export function makeTrace(overrides: Partial<TraceRecord> = {}): TraceRecord {
  fixtureCount += 1;
  const n = fixtureCount;
  return {
    id: `trace-${n}`,
    toolCallId: `call_${n}`,
    sessionId: 'session-1',
    actor: 'api',
    principal: null,
    tool: 'calculator',
    status: 'succeeded',
    sideEffect: 'none',
    arguments: { expression: '1 + 1' },
    rawArguments: '{"expression":"1 + 1"}',
    editedArguments: null,
    rawEditedArguments: null,
    approval: null,
    replayOf: null,
    batchId: null,
    servedFrom: null,
    createdAt: 1_700_000_000_000 + n,
    finishedAt: 1_700_000_000_010 + n,
    latencyMs: 10,
    stages: [
      { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.1, detail: 'JSON string' },
      { name: 'execute', status: 'ok', startedAt: 0.2, durationMs: 9.5, detail: null },
    ],
    attempts: [
      {
        number: 1,
        tool: 'calculator',
        fallback: false,
        startedAt: 0.2,
        durationMs: 9.5,
        outcome: 'ok',
        error: null,
        backoffMs: null,
        fault: null,
      },
    ],
    output: { result: 2 },
    stdout: null,
    stderr: null,
    exitCode: null,
    error: null,
    modelMessage: '{"result":2}',
    modelTruncation: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    metadata: {},
    ...overrides,
  };
}

/**
 * Reads what a store has committed, around the store and its queue (for SQLite, another
 * connection to the same file): what a restarted process would find.
 */
export interface CommittedReader {
  /** The call's committed status; null when no row is committed. */
  status(id: string): CallStatus | null;
  close(): void;
}

/** How a store is tested beyond its factory (see `describeTraceStore`). */
export interface TraceStoreSuiteOptions {
  /**
   * Run before each text search of the suite's search tests: the SQLite store indexes every call
   * here in one variant (searches then read the search index) and not in the others (they read
   * the calls above the index's mark by LIKE): both must find the same calls.
   */
  beforeSearch?: (store: TraceStore) => void;
}

/**
 * The behaviour every `TraceStore` must have. Each implementation's test file calls this with
 * a factory returning a fresh, empty store; the suite closes it after each test.
 * `openCommittedReader` opens a reader of the store just created; without it (stores that write
 * at once) the store's own `get` is the committed state.
 * @example describeTraceStore('memory', () => createMemoryTraceStore())
 */
export function describeTraceStore(
  name: string,
  createStore: () => TraceStore,
  openCommittedReader?: () => CommittedReader,
  options: TraceStoreSuiteOptions = {},
): void {
  describe(`TraceStore: ${name}`, () => {
    let store: TraceStore;
    let committed: CommittedReader;
    beforeEach(() => {
      store = createStore();
      committed = openCommittedReader?.() ?? {
        status: (id) => store.get(id)?.status ?? null,
        close() {},
      };
    });
    afterEach(() => {
      committed.close();
      store.close();
    });

    /** Writes records oldest first, each through begin + finish like the executor does. */
    const record = (...records: TraceRecord[]) => {
      for (const trace of records) {
        store.begin({ ...trace, status: 'running', finishedAt: null, latencyMs: null });
        store.finish(trace);
      }
      return records;
    };
    const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id);
    /** A list query with a text search, after `options.beforeSearch`. */
    const search = (query: TraceQuery) => {
      options.beforeSearch?.(store);
      return store.list(query);
    };

    /** The ids of every page of a search, `limit` a page, each page whole (not partial). */
    const searchAllPages = (query: TraceQuery, limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = search({ ...query, limit, cursor });
        expect(page.partial).toBe(false);
        seen.push(...ids(page));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return seen;
    };

    describe('writes and get', () => {
      it('keeps a UUID id (the SQLite store writes its 16 bytes) through get, list, search, steps, replays and delete', () => {
        const [a, b, c] = record(
          makeTrace({ id: '0192f3a4-5b6c-7d8e-9fa0-0000000000a1' }),
          makeTrace({ id: '0192f3a4-5b6c-7d8e-9fa0-0000000000b2', replayOf: '0192f3a4-5b6c-7d8e-9fa0-0000000000a1' }),
          // Not canonical (upper case): kept as it came.
          makeTrace({ id: '0192F3A4-5B6C-7D8E-9FA0-0000000000C3' }),
        );
        if (!a || !b || !c) throw new Error('fixtures');
        expect(store.get(a.id)).toEqual(stored(a));
        expect(store.get(c.id)?.id).toBe(c.id);
        expect(store.get(a.id.toUpperCase())).toBeNull();
        expect(ids(store.list())).toEqual([c.id, b.id, a.id]);
        for (const text of ['000000a1', '0000000000a1', a.id, a.id.toUpperCase(), '9fa0-0000000000a1'])
          expect(ids(search({ text })), text).toEqual([a.id]);
        // Within the last 8 characters of every id; a text reaching further back in none of them.
        expect(ids(search({ text: '000000' }))).toEqual([c.id, b.id, a.id]);
        expect(ids(search({ text: '0000000000' }))).toEqual([]);
        expect(store.adjacent(b.id)).toEqual({ newer: c.id, older: a.id });
        expect(store.replays(a.id)).toEqual([b.id]);
        expect(committed.status(a.id)).toBe('succeeded');
        expect(store.delete(a.id)).toBe('deleted');
        expect(store.get(a.id)).toBeNull();
        expect(store.delete(a.id)).toBe('not_found');
      });

      it('returns what begin wrote, then what finish wrote', () => {
        const final = makeTrace();
        const running: TraceRecord = { ...final, status: 'running', finishedAt: null, latencyMs: null, output: null };
        store.begin(running);
        expect(store.get(final.id)).toEqual(stored(running));
        store.finish(final);
        expect(store.get(final.id)).toEqual(stored(final));
      });

      it('resolves finish only once the record is committed, for each of many calls finishing together', async () => {
        const traces = Array.from({ length: 20 }, (_, i) =>
          makeTrace({ status: (['succeeded', 'failed', 'denied', 'cancelled'] as const)[i % 4] }),
        );
        const seen = await Promise.all(
          traces.map(async (trace) => {
            store.begin({ ...trace, status: 'running', finishedAt: null, latencyMs: null });
            await store.finish(trace);
            return committed.status(trace.id);
          }),
        );
        expect(seen).toEqual(traces.map((trace) => trace.status));
      });

      it('records a call that finishes without begin (rejected calls)', () => {
        const rejected = makeTrace({
          status: 'failed',
          arguments: '{"expression": ',
          rawArguments: '{"expression": ',
          error: {
            code: 'INVALID_ARGUMENTS',
            message: 'Arguments are not valid JSON',
            retryable: false,
            kind: 'parameter',
          },
          attempts: [],
          output: null,
        });
        store.finish(rejected);
        expect(store.get(rejected.id)).toEqual(stored(rejected));
        expect(ids(store.list())).toEqual([rejected.id]);
        expect(store.list().items[0]).toMatchObject({
          status: 'failed',
          errorCode: 'INVALID_ARGUMENTS',
          attemptCount: 0,
        });
      });

      it('update changes a running call in place', () => {
        const trace = makeTrace({ status: 'running', finishedAt: null, latencyMs: null });
        store.begin(trace);
        const waiting: TraceRecord = {
          ...trace,
          status: 'awaiting_approval',
          stages: [
            ...trace.stages,
            { name: 'permission', status: 'waiting', startedAt: 1, durationMs: 0, detail: 'awaiting approval' },
          ],
        };
        store.update(waiting);
        expect(store.get(trace.id)).toEqual(stored(waiting));
        expect(store.list().items).toHaveLength(1);
      });

      it('keeps its own copy: mutating a record after writing it changes nothing', () => {
        const trace = makeTrace({ status: 'running' });
        store.begin(trace);
        trace.stages.push({ name: 'trace', status: 'ok', startedAt: 5, durationMs: 1, detail: null });
        (trace.metadata as Record<string, unknown>).late = true;
        expect(store.get(trace.id)?.stages).toHaveLength(2);
        expect(store.get(trace.id)?.metadata).toEqual({});
      });

      it('re-records new raw arguments when they change between begin and finish', () => {
        const trace = makeTrace({ status: 'running' });
        store.begin(trace);
        store.finish({ ...trace, status: 'succeeded', rawArguments: '{"expression":"2 + 2"}' });
        expect(store.openSealedArguments(trace.id)?.rawArguments).toBe('{"expression":"2 + 2"}');
      });

      it('lists the replays of a trace, oldest first, each with its batch id', () => {
        const original = makeTrace();
        store.finish(original);
        const first = makeTrace({
          replayOf: original.id,
          batchId: 'batch-a',
          flags: { ...original.flags, replayed: true },
        });
        const other = makeTrace({ batchId: 'batch-a' });
        const second = makeTrace({ replayOf: original.id, batchId: 'batch-b' });
        for (const trace of [first, other, second]) store.finish(trace);
        expect(store.replays(original.id)).toEqual([first.id, second.id]);
        expect(store.replays(first.id)).toEqual([]);
        expect(store.get(first.id)).toMatchObject({
          replayOf: original.id,
          batchId: 'batch-a',
          flags: { replayed: true },
        });
        expect(store.get(original.id)).toMatchObject({ replayOf: null, batchId: null });
        store.delete(first.id);
        expect(store.replays(original.id)).toEqual([second.id]);
      });

      it('numbers the calls of each session 1, 2, 3… in the order they began, whatever writes follow', () => {
        const a1 = makeTrace({ sessionId: 'seq-a', status: 'running', finishedAt: null, latencyMs: null });
        const b1 = makeTrace({ sessionId: 'seq-b', status: 'running', finishedAt: null, latencyMs: null });
        const a2 = makeTrace({ sessionId: 'seq-a', status: 'running', finishedAt: null, latencyMs: null });
        const alone = makeTrace({ sessionId: null });
        for (const trace of [a1, b1, a2]) store.begin(trace);
        // A call rejected before it began is numbered at its only write.
        const a3 = makeTrace({ sessionId: 'seq-a', status: 'failed', attempts: [] });
        store.finish(a3);
        store.finish(alone);
        // Finishing in another order, and an update between, changes no number.
        store.update({ ...a2, status: 'awaiting_approval' });
        store.finish({ ...a2, status: 'succeeded' });
        store.finish({ ...a1, status: 'succeeded' });
        store.finish({ ...b1, status: 'succeeded' });
        expect([a1, a2, a3, b1, alone].map((trace) => store.get(trace.id)?.sessionSeq)).toEqual([1, 2, 3, 1, null]);
        expect(store.get(a2.id)).toEqual(stored({ ...a2, status: 'succeeded' }, 2));
        const listed = store.list({ sessionId: 'seq-a' }).items.map((item) => [item.id, item.sessionSeq]);
        expect(listed).toEqual([
          [a3.id, 3],
          [a2.id, 2],
          [a1.id, 1],
        ]);
        expect(store.list({ sessionId: undefined }).items.find((item) => item.id === alone.id)?.sessionSeq).toBeNull();
      });

      it('keeps the recorded call a call was served from, in the record and the list', () => {
        const recorded = makeTrace();
        const served = makeTrace({ servedFrom: recorded.id, attempts: [] });
        record(recorded, served);
        expect(store.get(served.id)).toEqual(stored(served));
        expect(store.list().items.map((item) => item.servedFrom)).toEqual([recorded.id, null]);
      });

      it('returns null for an unknown id', () => {
        expect(store.get('nope')).toBeNull();
      });

      it('round-trips every JSON field exactly', () => {
        const outputs: unknown[] = [
          'plain text',
          '',
          { nested: { list: [1, 'two', null, true], unicode: 'héllo wörld 🚀', quote: 'a"b\\c' } },
          [],
          null,
          0,
          -12.5,
          false,
          undefined,
        ];
        const traces = outputs.map((output) =>
          makeTrace({
            output,
            status: 'failed',
            arguments: { path: 'a/b.txt', token: '[REDACTED]', nested: [{ deep: 1.5 }] },
            stdout: 'line 1\nline 2',
            stderr: 'warning: ü',
            exitCode: 2,
            error: {
              code: 'NON_ZERO_EXIT',
              message: 'exit 2',
              retryable: false,
              kind: 'business',
              hint: 'check the command',
              details: { exitCode: 2, argv: ['ls', '-l'] },
              stage: 'execute',
            },
            attempts: [
              {
                number: 1,
                tool: 'shell',
                fallback: false,
                startedAt: 1,
                durationMs: 100,
                outcome: 'timeout',
                error: { code: 'TIMEOUT', message: 'took too long', retryable: true, kind: 'timeout' },
                backoffMs: 250,
                fault: { ruleId: 'flt_slow', ruleName: 'slow', kind: 'latency', ms: 5000 },
              },
              {
                number: 2,
                tool: 'shell-fallback',
                fallback: true,
                startedAt: 351,
                durationMs: 3,
                outcome: 'error',
                error: null,
                backoffMs: null,
                fault: null,
              },
            ],
            flags: { retried: true, fellBack: true, truncated: true, faulted: true, replayed: true },
            modelTruncation: { headChars: 8192, tailChars: 8192, totalChars: 2_097_152 },
            metadata: { replayOf: 'trace-0', client: { name: 'test', version: 1 } },
            sessionId: null,
            sideEffect: null,
          }),
        );
        record(...traces);
        for (const trace of traces) expect(store.get(trace.id)).toEqual(stored(trace));
        const fifth = store.get(traces[4]?.id ?? '');
        expect(fifth?.output).toBeNull();
        expect(store.get(traces[8]?.id ?? '')?.output).toBeUndefined();
        expect(store.list({ limit: 1 }).items[0]).toEqual({
          id: traces[8]?.id,
          toolCallId: traces[8]?.toolCallId,
          sessionId: null,
          actor: 'api',
          principal: null,
          tool: 'calculator',
          status: 'failed',
          createdAt: traces[8]?.createdAt,
          finishedAt: traces[8]?.finishedAt,
          latencyMs: 10,
          approval: null,
          attemptCount: 2,
          errorCode: 'NON_ZERO_EXIT',
          flags: { retried: true, fellBack: true, truncated: true, faulted: true, replayed: true },
          argumentsPreview: '{"path":"a/b.txt","token":"[REDACTED]","nested":[{"deep":1.5}]}',
          sessionSeq: null,
          servedFrom: null,
          imported: false,
        });
      });

      it('round-trips how much of the output the model got, and null when it got all', () => {
        const cut = makeTrace({ modelTruncation: { headChars: 10, tailChars: 5, totalChars: 1000 } });
        const whole = makeTrace({ modelTruncation: null });
        record(cut, whole);
        expect(store.get(cut.id)?.modelTruncation).toEqual({ headChars: 10, tailChars: 5, totalChars: 1000 });
        expect(store.get(whole.id)?.modelTruncation).toBeNull();
      });

      it('round-trips arguments that could not be parsed (a string)', () => {
        const [trace] = record(makeTrace({ arguments: '{not json', rawArguments: '{not json' }));
        expect(store.get(trace?.id ?? '')?.arguments).toBe('{not json');
      });
    });

    describe('list', () => {
      it('lists newest first with summaries only', () => {
        const traces = record(makeTrace(), makeTrace(), makeTrace());
        const page = store.list();
        expect(ids(page)).toEqual(traces.map((t) => t.id).reverse());
        expect(page.nextCursor).toBeNull();
        expect(page.items[0]).not.toHaveProperty('arguments');
        expect(page.items[0]).not.toHaveProperty('rawArguments');
      });

      it('carries the first 200 characters of the redacted arguments, counted like SQLite', () => {
        const long = { text: `${'🚀é'.repeat(150)}tail`, token: '[REDACTED]' };
        const [big, none, small] = record(
          makeTrace({ arguments: long }),
          makeTrace({ arguments: undefined }),
          makeTrace({ arguments: { path: 'a.txt' } }),
        );
        const preview = (id: string | undefined) => store.list().items.find((item) => item.id === id)?.argumentsPreview;
        expect(preview(big?.id)).toBe(Array.from(JSON.stringify(long)).slice(0, 200).join(''));
        expect(preview(none?.id)).toBeNull();
        expect(preview(small?.id)).toBe('{"path":"a.txt"}');
      });

      it('returns an empty page for an empty store', () => {
        expect(store.list()).toEqual({ items: [], nextCursor: null, partial: false, total: 0 });
      });

      it('filters by tool, status, session and time, each and combined', () => {
        const base = 1_800_000_000_000;
        const [a, b, c, d, e] = record(
          makeTrace({ tool: 'read_file', status: 'succeeded', sessionId: 's1', createdAt: base }),
          makeTrace({ tool: 'read_file', status: 'failed', sessionId: 's2', createdAt: base + 10 }),
          makeTrace({ tool: 'shell', status: 'failed', sessionId: 's1', createdAt: base + 20 }),
          makeTrace({ tool: 'shell', status: 'denied', sessionId: null, createdAt: base + 30 }),
          makeTrace({ tool: 'read_file', status: 'failed', sessionId: 's1', createdAt: base + 40 }),
        );
        const of = (...traces: (TraceRecord | undefined)[]) => traces.map((t) => t?.id);
        expect(ids(store.list({ tool: 'read_file' }))).toEqual(of(e, b, a));
        expect(ids(store.list({ status: 'failed' }))).toEqual(of(e, c, b));
        expect(ids(store.list({ sessionId: 's1' }))).toEqual(of(e, c, a));
        expect(ids(store.list({ from: base + 10 }))).toEqual(of(e, d, c, b));
        expect(ids(store.list({ to: base + 30 }))).toEqual(of(c, b, a));
        expect(ids(store.list({ from: base + 10, to: base + 40 }))).toEqual(of(d, c, b));
        expect(ids(store.list({ tool: 'read_file', status: 'failed' }))).toEqual(of(e, b));
        expect(ids(store.list({ tool: 'read_file', status: 'failed', sessionId: 's1' }))).toEqual(of(e));
        expect(ids(store.list({ tool: 'shell', from: base + 25, to: base + 31 }))).toEqual(of(d));
        expect(ids(store.list({ status: 'failed', sessionId: 's1', to: base + 40 }))).toEqual(of(c));
        expect(ids(store.list({ tool: 'nope' }))).toEqual([]);
        expect(ids(store.list({ from: base + 41 }))).toEqual([]);
        expect(ids(store.list({ from: base + 40, to: base + 10 }))).toEqual([]);
        // Empty values mean "no filter", as a blank form field would.
        expect(ids(store.list({ tool: '', sessionId: '', text: '', cursor: '' }))).toHaveLength(5);
      });

      it('filters fault-injected calls (and the others), alone and with other filters, with no cheap total', () => {
        const flags = (faulted: boolean) => ({
          retried: false,
          fellBack: false,
          truncated: false,
          faulted,
          replayed: false,
        });
        const [a, b, c] = record(
          makeTrace({ tool: 'shell', flags: flags(true) }),
          makeTrace({ tool: 'shell', flags: flags(false) }),
          makeTrace({ tool: 'read_file', flags: flags(true) }),
        );
        const of = (...traces: (TraceRecord | undefined)[]) => traces.map((t) => t?.id);
        expect(ids(store.list({ faulted: true }))).toEqual(of(c, a));
        expect(ids(store.list({ faulted: false }))).toEqual(of(b));
        expect(ids(store.list({ faulted: true, tool: 'shell' }))).toEqual(of(a));
        expect(store.list({ faulted: true }).total).toBeNull();
        expect(store.list({ faulted: true }).items[0]?.flags.faulted).toBe(true);
      });

      it('searches the tool call id and the redacted arguments, ignoring case', () => {
        const [byId, byArgs, other] = record(
          makeTrace({ toolCallId: 'call_ABC123' }),
          makeTrace({ toolCallId: 'call_7', arguments: { path: 'Reports/Q3-Summary.md' } }),
          makeTrace({ toolCallId: 'call_zzz', arguments: { path: 'notes.txt' } }),
        );
        expect(ids(search({ text: 'abc1' }))).toEqual([byId?.id]);
        expect(ids(search({ text: 'q3-summary' }))).toEqual([byArgs?.id]);
        expect(ids(search({ text: 'NOTES' }))).toEqual([other?.id]);
        // 'call_' is within the whole of 'call_7' and 'call_zzz', not within the last 8 of 'call_ABC123'.
        expect(ids(search({ text: 'call_' }))).toEqual([other?.id, byArgs?.id]);
        expect(ids(search({ text: 'nowhere' }))).toEqual([]);
      });

      it('searches the trace id, the error (code, message, hint), output, stdout and stderr, and the session id as a prefix', () => {
        const failure = { code: 'OUTPUT_LIMIT', message: 'too much', retryable: false, kind: 'internal' } as const;
        const [byTraceId, byCode, bySession, byOutput, byStdout, byStderr] = record(
          makeTrace({ id: 'trace-XyZ-77' }),
          makeTrace({ status: 'failed', error: failure }),
          makeTrace({ sessionId: 'agent-run-42' }),
          makeTrace({ output: { answer: 'Paris is the capital' } }),
          makeTrace({ stdout: 'compiled 12 modules' }),
          makeTrace({ stderr: 'Warning: deprecated flag' }),
        );
        expect(ids(search({ text: 'xyz-7' }))).toEqual([byTraceId?.id]);
        expect(ids(search({ text: 'output_lim' }))).toEqual([byCode?.id]);
        expect(ids(search({ text: 'AGENT-run' }))).toEqual([bySession?.id]);
        expect(ids(search({ text: 'run-42' }))).toEqual([]);
        expect(ids(search({ text: 'paris' }))).toEqual([byOutput?.id]);
        expect(ids(search({ text: '12 MODULES' }))).toEqual([byStdout?.id]);
        expect(ids(search({ text: 'deprecated' }))).toEqual([byStderr?.id]);
        expect(ids(search({ text: 'too much' }))).toEqual([byCode?.id]);
        expect(ids(search({ text: 'not enough' }))).toEqual([]);
      });

      it('finds a long id by any text within its last 8 characters, or by a text that ends it', () => {
        const [call] = record(
          makeTrace({ id: '01a190d0-1c3a-7a12-8a44-a1d1e7a3e465', toolCallId: 'toolu_01MxMhb9xtMSPhmHtgmygFuG' }),
        );
        for (const text of [
          'e7a3e465', // the UI's short id: its last 8
          'E7A3E4',
          'a3e',
          '01a190d0-1c3a-7a12-8a44-a1d1e7a3e465',
          '8a44-a1d1e7a3e465',
          'a1d1e7a3e465',
          'toolu_01MxMhb9xtMSPhmHtgmygFuG',
          'tgmygfug',
          'gmygf',
        ]) {
          expect(ids(search({ text })), text).toEqual([call?.id]);
        }
        // Their middles are not searched, nor any text reaching back past the last 8 that does not
        // end the id: two dozen random trigrams per id were most of the index.
        for (const text of [
          '7a12-8a44',
          '01a190d0-1c3a',
          'A1D1E7A3',
          'd1e7a3e4',
          'MxMhb9',
          'HtgmygFu',
          'toolu_01MxMhb9xtMSPh',
        ]) {
          expect(ids(search({ text })), text).toEqual([]);
        }
      });

      it('finds the calls of every session whose id starts with the text, ignoring ASCII case, page after page and with other filters', () => {
        const calls = record(
          makeTrace({ sessionId: 'Agent-Run-7' }),
          makeTrace({ sessionId: 'agent-run-8', tool: 'shell' }),
          makeTrace({ sessionId: 'other-agent-run' }),
          makeTrace({ sessionId: null, arguments: { note: 'see agent-run-9 notes' } }),
          makeTrace({ sessionId: 'Agent-Run-7', tool: 'shell' }),
          makeTrace({ sessionId: 'agent-run-8' }),
          makeTrace({ sessionId: 'Émile-agent' }),
          makeTrace({ sessionId: 'AGENT-RUN-7' }),
        );
        const [a7, b8, , byArgs, a7shell, b8b, emile, upper7] = calls;
        const all = [upper7, b8b, a7shell, byArgs, b8, a7].map((call) => call?.id);
        const pages = (query: TraceQuery) => searchAllPages(query, 2);
        // A session id by its start only ('other-agent-run' holds it further on), the arguments anywhere.
        expect(pages({ text: 'agent-RUN' })).toEqual(all);
        expect(ids(search({ text: 'agent-run-7' }))).toEqual([upper7?.id, a7shell?.id, a7?.id]);
        expect(ids(search({ text: 'Agent-Run-8' }))).toEqual([b8b?.id, b8?.id]);
        expect(pages({ text: 'agent-run', tool: 'shell' })).toEqual([a7shell?.id, b8?.id]);
        expect(ids(search({ text: 'agent-run-7', status: 'failed' }))).toEqual([]);
        expect(ids(search({ text: 'agent-run', sessionId: 'agent-run-8' }))).toEqual([b8b?.id, b8?.id]);
        // SQLite's LIKE ignores the case of ASCII letters only.
        expect(ids(search({ text: 'émile' }))).toEqual([]);
        expect(ids(search({ text: 'ÉMILE' }))).toEqual([emile?.id]);
        expect(ids(search({ text: 'Émile-a' }))).toEqual([emile?.id]);
        expect(ids(search({ text: 'gent-run-8' }))).toEqual([]);
      });

      it('finds the calls of many sessions starting with the text, a long one among them, newest first, page after page', () => {
        // The SQLite store reads the small sessions' calls together, a long one's on its own (SMALL_SESSION_CALLS).
        const calls = record(
          ...Array.from({ length: 150 }, (_, i) =>
            makeTrace({
              sessionId: i % 2 === 0 ? 'Bulk-long' : `bulk-${i}`,
              tool: i % 3 === 0 ? 'shell' : 'calculator',
            }),
          ),
          makeTrace({ sessionId: 'not-bulk' }),
        );
        const newestFirst = (keep: (call: TraceRecord) => boolean) =>
          calls
            .filter(keep)
            .map((call) => call.id)
            .reverse();
        const pages = (query: TraceQuery) => searchAllPages(query, 20);
        expect(pages({ text: 'BULK-' })).toEqual(newestFirst((call) => call.sessionId !== 'not-bulk'));
        expect(pages({ text: 'bulk-L' })).toEqual(newestFirst((call) => call.sessionId === 'Bulk-long'));
        expect(pages({ text: 'bulk-', tool: 'shell' })).toEqual(
          newestFirst((call) => call.sessionId !== 'not-bulk' && call.tool === 'shell'),
        );
        expect(ids(search({ text: 'bulk-14', limit: 500 }))).toEqual(
          newestFirst((call) => /^bulk-14\d*$/.test(call.sessionId ?? '')),
        );
      });

      it('searches the first SEARCHED_TEXT_CHARS characters of a long text column, counting code points', () => {
        // 🚀 is two UTF-16 units and one character, as SQLite counts them.
        const head = '🚀'.repeat(SEARCHED_TEXT_CHARS - 10);
        const [call] = record(makeTrace({ stdout: `${head}inside-${'x'.repeat(20)}beyond-the-head` }));
        expect(ids(search({ text: 'inside' }))).toEqual([call?.id]);
        expect(ids(search({ text: 'beyond-the-head' }))).toEqual([]);
      });

      it('takes % and _ in search text literally', () => {
        const [percent, underscore] = record(
          makeTrace({ arguments: { discount: '50% off' } }),
          makeTrace({ arguments: { name: 'a_b' } }),
          makeTrace({ arguments: { discount: '50 percent off', name: 'axb' } }),
          makeTrace({ arguments: { path: 'C:\\temp' } }),
        );
        expect(ids(search({ text: '50%' }))).toEqual([percent?.id]);
        expect(ids(search({ text: 'a_b' }))).toEqual([underscore?.id]);
        expect(ids(search({ text: '%' }))).toEqual([percent?.id]);
        expect(ids(search({ text: '\\' }))).toHaveLength(1);
      });

      it('does not search the raw arguments (they may hold secrets)', () => {
        record(makeTrace({ arguments: { token: '[REDACTED]' }, rawArguments: '{"token":"sk-live-needle"}' }));
        expect(ids(search({ text: 'needle' }))).toEqual([]);
      });

      it('gives the total when it is cheap: no filter, or a tool filter alone', () => {
        record(
          makeTrace({ tool: 'read_file' }),
          makeTrace({ tool: 'read_file', status: 'failed' }),
          makeTrace({ tool: 'shell' }),
        );
        store.begin(makeTrace({ tool: 'shell', status: 'running' }));
        expect(store.list({ limit: 1 }).total).toBe(4);
        const first = store.list({ tool: 'read_file', limit: 1 });
        expect(first.total).toBe(2);
        expect(store.list({ tool: 'read_file', limit: 1, cursor: first.nextCursor ?? undefined }).total).toBe(2);
        expect(store.list({ tool: 'nope' }).total).toBe(0);
        for (const query of [
          { status: 'failed' as const },
          { tool: 'read_file', status: 'failed' as const },
          { sessionId: 'session-1' },
          { text: 'call' },
          { from: 1 },
          { tool: 'shell', to: 2_000_000_000_000 },
        ]) {
          expect(store.list(query).total, JSON.stringify(query)).toBeNull();
        }
      });

      it('pages without duplicates or gaps while new calls arrive between pages', () => {
        const original = record(...Array.from({ length: 25 }, () => makeTrace({ tool: 'paged' })));
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = store.list({ tool: 'paged', limit: 10, cursor });
          seen.push(...ids(page));
          cursor = page.nextCursor ?? undefined;
          pages += 1;
          record(makeTrace({ tool: 'paged' }), makeTrace({ tool: 'paged' }));
        } while (cursor);
        expect(pages).toBe(3);
        expect(seen).toEqual(original.map((t) => t.id).reverse());
      });

      it('has no next page when the last page is exactly full', () => {
        record(...Array.from({ length: 4 }, () => makeTrace()));
        const first = store.list({ limit: 2 });
        expect(first.nextCursor).not.toBeNull();
        const second = store.list({ limit: 2, cursor: first.nextCursor ?? undefined });
        expect(second.items).toHaveLength(2);
        expect(second.nextCursor).toBeNull();
      });

      it('pages with filters and a time range', () => {
        const base = 1_900_000_000_000;
        const traces = record(
          ...Array.from({ length: 12 }, (_, i) => makeTrace({ createdAt: base + i, tool: i % 2 ? 'odd' : 'even' })),
        );
        const expected = traces
          .filter((t) => t.tool === 'odd' && t.createdAt >= base + 2)
          .map((t) => t.id)
          .reverse();
        const first = store.list({ tool: 'odd', from: base + 2, limit: 3 });
        const second = store.list({ tool: 'odd', from: base + 2, limit: 3, cursor: first.nextCursor ?? undefined });
        expect([...ids(first), ...ids(second)]).toEqual(expected);
        expect(second.nextCursor).toBeNull();
      });

      it('clamps the limit to 1..500 and defaults it to 50', () => {
        record(...Array.from({ length: 501 }, () => makeTrace()));
        expect(store.list().items).toHaveLength(50);
        expect(store.list({ limit: 0 }).items).toHaveLength(1);
        expect(store.list({ limit: -5 }).items).toHaveLength(1);
        expect(store.list({ limit: 2.9 }).items).toHaveLength(2);
        expect(store.list({ limit: Number.NaN }).items).toHaveLength(50);
        const max = store.list({ limit: 10_000 });
        expect(max.items).toHaveLength(500);
        expect(max.nextCursor).not.toBeNull();
      });

      it('rejects a cursor it did not hand out', () => {
        record(makeTrace());
        for (const cursor of [
          'garbage!',
          'abc',
          Buffer.from('s1.abc').toString('base64url'),
          Buffer.from('s1.-1').toString('base64url'),
          '12',
        ]) {
          expect(() => store.list({ cursor }), cursor).toThrow(InvalidCursorError);
        }
      });
    });

    describe('markInterrupted', () => {
      it('marks running calls interrupted and leaves the others alone', () => {
        const running = makeTrace({ status: 'running', finishedAt: null, latencyMs: null });
        const waiting = makeTrace({ status: 'awaiting_approval', finishedAt: null, latencyMs: null });
        const done = makeTrace();
        store.begin(running);
        store.begin(waiting);
        record(done);
        expect(store.markInterrupted(1_700_000_999_000)).toBe(1);
        expect(store.get(running.id)).toEqual({
          ...stored(running),
          status: 'interrupted',
          finishedAt: 1_700_000_999_000,
          error: INTERRUPTED_ERROR,
        });
        expect(store.get(waiting.id)).toEqual(stored(waiting));
        expect(store.get(done.id)).toEqual(stored(done));
        expect(store.list({ status: 'interrupted' }).items).toMatchObject([
          { id: running.id, errorCode: 'INTERRUPTED' },
        ]);
        expect(store.markInterrupted(1_700_000_999_001)).toBe(0);
      });

      it('never writes over an interrupted call: a late update or finish is dropped', () => {
        const running = makeTrace({ status: 'running', finishedAt: null, latencyMs: null });
        store.begin(running);
        store.markInterrupted(1_700_000_999_000);
        const interrupted = store.get(running.id);
        store.update({ ...running, status: 'awaiting_approval' });
        store.finish(makeTrace({ ...running, status: 'succeeded', rawArguments: '{"changed":true}' }));
        expect(store.get(running.id)).toEqual(interrupted);
        expect(store.list().items).toMatchObject([{ id: running.id, status: 'interrupted' }]);
      });
    });

    describe('tools and adjacent', () => {
      it('lists every tool with calls, sorted, whether registered or not', () => {
        record(makeTrace({ tool: 'search_web' }), makeTrace({ tool: 'calculator' }), makeTrace({ tool: 'search_web' }));
        store.begin(makeTrace({ tool: 'Zeta', status: 'running' }));
        expect(store.tools()).toEqual(['Zeta', 'calculator', 'search_web']);
        const [only] = record(makeTrace({ tool: 'once' }));
        expect(store.tools()).toContain('once');
        expect(store.delete(only?.id ?? '')).toBe('deleted');
        expect(store.tools()).not.toContain('once');
      });

      it('finds the calls recorded just before and after one, skipping deleted calls', () => {
        const [a, b, c, d] = record(makeTrace(), makeTrace(), makeTrace(), makeTrace());
        expect(store.adjacent(b?.id ?? '')).toEqual({ newer: c?.id, older: a?.id });
        expect(store.adjacent(a?.id ?? '')).toEqual({ newer: b?.id, older: null });
        expect(store.adjacent(d?.id ?? '')).toEqual({ newer: null, older: c?.id });
        store.delete(c?.id ?? '');
        expect(store.adjacent(b?.id ?? '')).toEqual({ newer: d?.id, older: a?.id });
        expect(store.adjacent('nope')).toEqual({ newer: null, older: null });
      });
    });

    describe('delete', () => {
      it('deletes a finished call, refuses an unfinished one, and says when there is none', () => {
        const [done, failed] = record(makeTrace(), makeTrace({ status: 'failed' }));
        const running = makeTrace({ status: 'running', finishedAt: null });
        const waiting = makeTrace({ status: 'awaiting_approval', finishedAt: null });
        store.begin(running);
        store.begin(waiting);
        expect(store.delete(done?.id ?? '')).toBe('deleted');
        expect(store.get(done?.id ?? '')).toBeNull();
        expect(store.delete(done?.id ?? '')).toBe('not_found');
        expect(store.delete(running.id)).toBe('running');
        expect(store.delete(waiting.id)).toBe('running');
        expect(store.get(running.id)).toEqual(stored(running));
        expect(ids(store.list())).toEqual([waiting.id, running.id, failed?.id]);
      });

      it('deletes a session, keeping its unfinished calls', () => {
        const [a, , c] = record(
          makeTrace({ sessionId: 'doomed' }),
          makeTrace({ sessionId: 'kept' }),
          makeTrace({ sessionId: 'doomed', status: 'interrupted' }),
        );
        const running = makeTrace({ sessionId: 'doomed', status: 'running' });
        store.begin(running);
        expect(store.deleteSession('doomed')).toEqual({ deleted: 2, skippedRunning: 1 });
        expect(store.get(a?.id ?? '')).toBeNull();
        expect(store.get(c?.id ?? '')).toBeNull();
        expect(ids(store.list({ sessionId: 'doomed' }))).toEqual([running.id]);
        expect(store.list({ sessionId: 'kept' }).items).toHaveLength(1);
        expect(store.deleteSession('nobody')).toEqual({ deleted: 0, skippedRunning: 0 });
      });

      it('keeps the catalog counts and totals right after deleting', () => {
        const traces = record(
          ...Array.from({ length: 12 }, (_, i) =>
            makeTrace({
              tool: i % 3 ? 'alpha' : 'beta',
              status: i % 4 ? 'succeeded' : 'failed',
              sessionId: `s${i % 2}`,
            }),
          ),
        );
        store.delete(traces[0]?.id ?? '');
        store.delete(traces[5]?.id ?? '');
        store.deleteSession('s1');
        store.prune({ keepNewest: 3, limit: 500 });
        const left = traces.filter((t) => store.get(t.id) !== null);
        const expected = ['alpha', 'beta']
          .map((tool) => ({
            tool,
            calls: left.filter((t) => t.tool === tool).length,
            failures: left.filter((t) => t.tool === tool && t.status === 'failed').length,
          }))
          .filter((row) => row.calls > 0);
        expect(store.toolStats().map(({ tool, calls, failures }) => ({ tool, calls, failures }))).toEqual(expected);
        expect(store.list().total).toBe(left.length);
        expect(store.list({ tool: 'alpha' }).total).toBe(left.filter((t) => t.tool === 'alpha').length);
      });
    });

    describe('prune', () => {
      it('deletes finished calls older than a time, oldest first, at most `limit` at a time', () => {
        const base = 1_950_000_000_000;
        const [a, b, c, d] = record(
          makeTrace({ createdAt: base + 1 }),
          makeTrace({ createdAt: base }),
          makeTrace({ createdAt: base + 2 }),
          makeTrace({ createdAt: base + 10 }),
        );
        const old = makeTrace({ createdAt: base - 5, status: 'awaiting_approval', finishedAt: null });
        store.begin(old);
        expect(store.prune({ createdBefore: base + 10, limit: 2 })).toBe(2);
        expect(ids(store.list())).toEqual([old.id, d?.id, c?.id]);
        expect(store.prune({ createdBefore: base + 10, limit: 2 })).toBe(1);
        expect(store.prune({ createdBefore: base + 10, limit: 2 })).toBe(0);
        expect(ids(store.list())).toEqual([old.id, d?.id]);
        expect([a, b].map((t) => store.get(t?.id ?? ''))).toEqual([null, null]);
      });

      it('keeps the newest calls, counting unfinished ones but never deleting them', () => {
        const running = makeTrace({ status: 'running', finishedAt: null });
        store.begin(running);
        const traces = record(...Array.from({ length: 6 }, () => makeTrace()));
        expect(store.prune({ keepNewest: 3, limit: 2 })).toBe(2);
        expect(store.prune({ keepNewest: 3, limit: 2 })).toBe(2);
        expect(store.prune({ keepNewest: 3, limit: 2 })).toBe(0);
        expect(ids(store.list())).toEqual([traces[5]?.id, traces[4]?.id, running.id]);
        expect(store.prune({ keepNewest: 0, limit: 10 })).toBe(2);
        expect(ids(store.list())).toEqual([running.id]);
      });
    });

    describe('sessions', () => {
      const base = 1_960_000_000_000;
      const approval = (requestedAt: number, decidedAt: number | null) => ({
        rule: 'default for write: ask',
        requestedAt,
        expiresAt: null,
        decision: decidedAt === null ? null : ('approved' as const),
        by: decidedAt === null ? null : 'api',
        decidedAt,
        reason: null,
        ruleCreated: null,
      });
      const summary = (id: string) => {
        const session = store.getSession(id);
        if (!session) return null;
        const { id: _id, imported: _imported, ...rest } = session;
        return rest;
      };

      it('lists each call with the times of its wait for approval, null for one that never waited', () => {
        const waited = makeTrace({ createdAt: base, finishedAt: base + 600, approval: approval(base + 1, base + 501) });
        const plain = makeTrace({ createdAt: base + 1 });
        record(waited, plain);
        const items = store.list().items;
        expect(items.find((item) => item.id === waited.id)?.approval).toEqual({
          requestedAt: base + 1,
          decidedAt: base + 501,
        });
        expect(items.find((item) => item.id === plain.id)?.approval).toBeNull();
      });

      it('counts calls, failures, denials, running calls and finished approval waits, with their bounds', () => {
        record(
          makeTrace({ sessionId: 'run-1', createdAt: base, finishedAt: base + 40 }),
          makeTrace({ sessionId: 'run-1', createdAt: base + 10, finishedAt: base + 90, status: 'failed' }),
          makeTrace({ sessionId: 'run-1', createdAt: base + 20, finishedAt: base + 30, status: 'denied' }),
          makeTrace({ sessionId: 'other', createdAt: base + 5, finishedAt: base + 6 }),
          makeTrace({ sessionId: null, createdAt: base + 7, finishedAt: base + 8 }),
        );
        const waited = makeTrace({
          sessionId: 'run-1',
          sideEffect: 'write',
          createdAt: base + 30,
          finishedAt: base + 600,
          approval: approval(base + 31, base + 531),
        });
        store.begin({ ...waited, status: 'awaiting_approval', finishedAt: null, approval: approval(base + 31, null) });
        expect(summary('run-1')).toEqual({
          firstCallAt: base,
          lastCallAt: base + 30,
          lastFinishedAt: base + 90,
          calls: 4,
          failed: 1,
          denied: 1,
          running: 1,
          approvalWaitMs: 0,
        });
        store.finish(waited);
        expect(summary('run-1')).toMatchObject({ running: 0, approvalWaitMs: 500, lastFinishedAt: base + 600 });
        expect(store.getSession('other')).toMatchObject({ id: 'other', calls: 1, imported: false });
        expect(store.getSession('nobody')).toBeNull();
      });

      it('moves a call between the counts when its status changes', () => {
        const call = makeTrace({ sessionId: 'run-2', createdAt: base, status: 'failed', finishedAt: base + 5 });
        store.begin({ ...call, status: 'running', finishedAt: null, latencyMs: null });
        expect(summary('run-2')).toMatchObject({ calls: 1, running: 1, failed: 0, lastFinishedAt: null });
        store.finish(call);
        expect(summary('run-2')).toMatchObject({ calls: 1, running: 0, failed: 1, lastFinishedAt: base + 5 });
        store.finish({ ...call, status: 'succeeded' });
        expect(summary('run-2')).toMatchObject({ calls: 1, running: 0, failed: 0 });
      });

      it('stays true through deletes, session deletes and retention, and drops an emptied session', () => {
        const [first, , , last] = record(
          makeTrace({ sessionId: 'run-3', createdAt: base, finishedAt: base + 500, status: 'failed' }),
          makeTrace({ sessionId: 'run-3', createdAt: base + 10, finishedAt: base + 20 }),
          makeTrace({ sessionId: 'run-3', createdAt: base + 30, finishedAt: base + 40, status: 'denied' }),
          makeTrace({ sessionId: 'run-3', createdAt: base + 50, finishedAt: base + 60 }),
          makeTrace({ sessionId: 'gone', createdAt: base + 1, finishedAt: base + 2 }),
        );
        expect(store.delete(first?.id ?? '')).toBe('deleted');
        expect(summary('run-3')).toEqual({
          firstCallAt: base + 10,
          lastCallAt: base + 50,
          lastFinishedAt: base + 60,
          calls: 3,
          failed: 0,
          denied: 1,
          running: 0,
          approvalWaitMs: 0,
        });
        expect(store.delete(last?.id ?? '')).toBe('deleted');
        expect(summary('run-3')).toMatchObject({ lastCallAt: base + 30, lastFinishedAt: base + 40, calls: 2 });
        expect(store.prune({ createdBefore: base + 20, limit: 10 })).toBe(2);
        expect(summary('run-3')).toMatchObject({ firstCallAt: base + 30, lastCallAt: base + 30, calls: 1, denied: 1 });
        expect(store.getSession('gone')).toBeNull();
        store.deleteSession('run-3');
        expect(store.getSession('run-3')).toBeNull();
        expect(store.listSessions().items).toEqual([]);
      });

      it('lists newest activity first in keyset pages, searches ids and keeps failed-only', () => {
        record(
          // Across seconds and within one (SQLite indexes the second, then sorts within it).
          makeTrace({ sessionId: 'Alpha-1', createdAt: base + 1 }),
          makeTrace({ sessionId: 'beta-2', createdAt: base + 1500, status: 'failed' }),
          makeTrace({ sessionId: 'alpha-3', createdAt: base + 3000 }),
          makeTrace({ sessionId: 'gamma-4', createdAt: base + 3000, status: 'denied' }),
          makeTrace({ sessionId: 'delta-5', createdAt: base + 3999 }),
          makeTrace({ sessionId: 'Alpha-1', createdAt: base + 4000 }),
        );
        const idsOf = (page: { items: { id: string }[] }) => page.items.map((item) => item.id);
        expect(idsOf(store.listSessions())).toEqual(['Alpha-1', 'delta-5', 'gamma-4', 'alpha-3', 'beta-2']);
        const first = store.listSessions({ limit: 2 });
        expect(idsOf(first)).toEqual(['Alpha-1', 'delta-5']);
        const second = store.listSessions({ limit: 2, cursor: first.nextCursor ?? '' });
        expect(idsOf(second)).toEqual(['gamma-4', 'alpha-3']);
        const third = store.listSessions({ limit: 2, cursor: second.nextCursor ?? '' });
        expect(idsOf(third)).toEqual(['beta-2']);
        expect(third.nextCursor).toBeNull();
        expect(idsOf(store.listSessions({ text: 'ALPHA' }))).toEqual(['Alpha-1', 'alpha-3']);
        expect(idsOf(store.listSessions({ text: 'a-' }))).toEqual([
          'Alpha-1',
          'delta-5',
          'gamma-4',
          'alpha-3',
          'beta-2',
        ]);
        expect(idsOf(store.listSessions({ text: '%' }))).toEqual([]);
        expect(idsOf(store.listSessions({ failedOnly: true }))).toEqual(['gamma-4', 'beta-2']);
        expect(() => store.listSessions({ cursor: 'nope' })).toThrow(InvalidCursorError);
        expect(() => store.listSessions({ cursor: Buffer.from('x1.12x.id').toString('base64url') })).toThrow(
          InvalidCursorError,
        );
      });

      it('reads the calls of a session in session order with what the timeline draws, cut at a limit', () => {
        const wait = approval(base + 2, base + 7);
        const traces = record(
          makeTrace({ sessionId: 'run-5', createdAt: base, batchId: 'batch-1', arguments: { b: 1, a: [2] } }),
          makeTrace({ sessionId: 'run-6', createdAt: base + 1 }),
          makeTrace({ sessionId: 'run-5', createdAt: base + 1, batchId: 'batch-1', approval: wait }),
          makeTrace({ sessionId: 'run-5', createdAt: base + 9, arguments: undefined }),
        );
        const read = store.sessionCalls('run-5', 10);
        expect(read.truncated).toBe(false);
        expect(read.calls.map((call) => call.id)).toEqual([traces[0]?.id, traces[2]?.id, traces[3]?.id]);
        expect(read.calls.map((call) => call.sessionSeq)).toEqual([1, 2, 3]);
        expect(read.calls[0]).toMatchObject({
          tool: 'calculator',
          status: 'succeeded',
          batchId: 'batch-1',
          approval: null,
          arguments: '{"b":1,"a":[2]}',
          argumentsPreview: '{"b":1,"a":[2]}',
          attempts: traces[0]?.attempts,
        });
        expect(read.calls[1]?.approval).toEqual(wait);
        expect(read.calls[2]?.arguments).toBeNull();
        const cut = store.sessionCalls('run-5', 2);
        expect(cut.truncated).toBe(true);
        expect(cut.calls.map((call) => call.id)).toEqual([traces[0]?.id, traces[2]?.id]);
        expect(store.sessionCalls('nobody', 10)).toEqual({ calls: [], truncated: false });
      });
    });

    describe('toolStats', () => {
      it('counts calls and failures and takes nearest-rank latency percentiles', () => {
        const latencies = Array.from({ length: 100 }, (_, i) => 100 - i);
        record(
          ...latencies.map((latencyMs, i) =>
            makeTrace({ tool: 'alpha', latencyMs, status: i % 10 === 0 ? 'failed' : 'succeeded' }),
          ),
        );
        record(makeTrace({ tool: 'beta', latencyMs: 7, status: 'denied', createdAt: 1_750_000_000_000 }));
        store.begin(makeTrace({ tool: 'beta', status: 'running', latencyMs: null, createdAt: 1_750_000_000_500 }));
        expect(store.toolStats()).toEqual([
          {
            tool: 'alpha',
            calls: 100,
            failures: 10,
            p50LatencyMs: 50,
            p95LatencyMs: 95,
            lastCalledAt: expect.any(Number),
          },
          { tool: 'beta', calls: 2, failures: 0, p50LatencyMs: 7, p95LatencyMs: 7, lastCalledAt: 1_750_000_000_500 },
        ]);
      });

      it('takes the percentiles over the last `window` finished calls only', () => {
        record(...[1000, 1000, 1000, 1, 2, 3, 4].map((latencyMs) => makeTrace({ tool: 'alpha', latencyMs })));
        store.begin(makeTrace({ tool: 'alpha', status: 'running', latencyMs: null }));
        const [stats] = store.toolStats(4);
        expect(stats).toMatchObject({ calls: 8, p50LatencyMs: 2, p95LatencyMs: 4 });
      });

      it('reports null percentiles for a tool with no finished call', () => {
        store.begin(makeTrace({ tool: 'gamma', status: 'running', latencyMs: null, createdAt: 1_700_000_123_000 }));
        expect(store.toolStats()).toEqual([
          {
            tool: 'gamma',
            calls: 1,
            failures: 0,
            p50LatencyMs: null,
            p95LatencyMs: null,
            lastCalledAt: 1_700_000_123_000,
          },
        ]);
      });

      it('is empty for an empty store', () => {
        expect(store.toolStats()).toEqual([]);
      });
    });
  });
}

/**
 * The bounded scan of text searches and combined filters, for a store made with a scan window
 * of 10 rows: a page that ends at the window says so and its cursor goes on below it.
 */
export function describeScanWindow(name: string, createStore: () => TraceStore): void {
  describe(`TraceStore assistant messages and imports: ${name}`, () => {
    let store: TraceStore;
    beforeEach(() => {
      store = createStore();
    });
    afterEach(() => store.close());

    const message = (text: string) => ({ text, model: 'gpt-test', truncated: false });
    /** A trace as an import brings it: a stored trace of another Toolscope, with its session number. */
    const imported = (overrides: Partial<TraceRecord> = {}, sessionSeq: number | null = 1): StoredTrace => ({
      ...stored(makeTrace({ sessionId: 'imported-session', ...overrides }), sessionSeq ?? undefined),
      sessionSeq: overrides.sessionId === null ? null : sessionSeq,
    });

    it('keeps one message per batch, read back by batch id (unknown ids and batches without one are absent)', () => {
      store.saveAssistantMessage({ batchId: 'b1', sessionId: 's', createdAt: 1, message: message('I will add.') });
      store.saveAssistantMessage({
        batchId: 'b2',
        sessionId: null,
        createdAt: 2,
        message: { text: null, model: 'm', truncated: true },
      });
      const found = store.assistantMessages(['b1', 'b2', 'b3', 'b1']);
      expect([...found.keys()].sort()).toEqual(['b1', 'b2']);
      expect(found.get('b1')).toEqual(message('I will add.'));
      expect(found.get('b2')).toEqual({ text: null, model: 'm', truncated: true });
      expect(store.assistantMessages([]).size).toBe(0);
    });

    it("deletes a batch's message with the last of its calls", async () => {
      const a = makeTrace({ batchId: 'bx' });
      const b = makeTrace({ batchId: 'bx' });
      store.begin(a);
      await store.finish(a);
      store.begin(b);
      await store.finish(b);
      store.saveAssistantMessage({
        batchId: 'bx',
        sessionId: a.sessionId,
        createdAt: 1,
        message: message('two calls'),
      });
      expect(store.delete(a.id)).toBe('deleted');
      expect(store.assistantMessages(['bx']).size).toBe(1);
      expect(store.delete(b.id)).toBe('deleted');
      expect(store.assistantMessages(['bx']).size).toBe(0);
    });

    it('imports traces marked imported, with their messages, and no arguments to run again', () => {
      const first = imported({ batchId: 'ib' }, 1);
      const second = imported({ batchId: 'ib', status: 'failed' }, 2);
      const outcome = store.importTraces(
        [first, second],
        [{ batchId: 'ib', sessionId: 'imported-session', createdAt: first.createdAt, message: message('why') }],
      );
      expect(outcome).toEqual({ ok: true, imported: 2 });
      expect(store.get(first.id)).toEqual({ ...first, imported: true });
      expect(store.get(second.id)?.sessionSeq).toBe(2);
      expect(store.openSealedArguments(first.id)).toBeNull();
      expect(store.assistantMessages(['ib']).get('ib')).toEqual(message('why'));
      const items = store.list({ sessionId: 'imported-session' }).items;
      expect(items.map((item) => [item.id, item.imported])).toEqual([
        [second.id, true],
        [first.id, true],
      ]);
      expect(store.tools()).toContain('calculator');
    });

    it('imports nothing when one trace id is already stored, and names it', async () => {
      const local = makeTrace();
      store.begin(local);
      await store.finish(local);
      const fresh = imported({}, 1);
      const clash = { ...imported({}, 2), id: local.id };
      expect(store.importTraces([fresh, clash], [])).toEqual({ ok: false, exists: local.id });
      expect(store.get(fresh.id)).toBeNull();
      expect(store.get(local.id)?.imported).toBeUndefined();
      expect(store.list().items.map((item) => item.imported)).toEqual([false]);
    });

    it('leaves an imported call that was running or awaiting approval as it was imported', () => {
      const running = imported({ status: 'running', finishedAt: null, latencyMs: null }, 1);
      store.importTraces([running], []);
      expect(store.markInterrupted(Date.now())).toBe(0);
      expect(store.get(running.id)?.status).toBe('running');
    });

    it('numbers the calls of a session made here after the ones imported into it', async () => {
      const before = makeTrace({ sessionId: 'shared' });
      store.begin(before);
      await store.finish(before);
      expect(store.get(before.id)?.sessionSeq).toBe(1);
      store.importTraces([imported({ sessionId: 'shared' }, 5)], []);
      const after = makeTrace({ sessionId: 'shared' });
      store.begin(after);
      await store.finish(after);
      expect(store.get(after.id)?.sessionSeq).toBe(6);
    });

    it('deletes an imported call whatever its status, alone or with its session', () => {
      const running = imported({ status: 'running', finishedAt: null, latencyMs: null }, 1);
      const waiting = imported({ status: 'awaiting_approval', finishedAt: null, latencyMs: null }, 2);
      const done = imported({}, 3);
      store.importTraces([running, waiting, done], []);
      expect(store.delete(running.id)).toBe('deleted');
      expect(store.deleteSession('imported-session')).toEqual({ deleted: 2, skippedRunning: 0 });
      expect(store.list().items).toEqual([]);
    });

    it('keeps imported calls past the age bound of retention (they were made elsewhere, maybe long ago)', async () => {
      const old = imported({ createdAt: 1_000, finishedAt: 1_010 }, 1);
      store.importTraces([old], []);
      const local = makeTrace({ createdAt: 2_000, finishedAt: 2_010 });
      store.begin(local);
      await store.finish(local);
      expect(store.prune({ createdBefore: 1_000_000, limit: 100 })).toBe(1);
      expect(store.list().items.map((item) => item.id)).toEqual([old.id]);
      expect(store.prune({ keepNewest: 0, limit: 100 })).toBe(1);
      expect(store.list().items).toEqual([]);
    });
  });

  describe(`TraceStore scan window: ${name}`, () => {
    it('stops a search of fewer than three characters at the window, marks the page partial, and goes on with the cursor', () => {
      const store = createStore();
      const needle = makeTrace({ toolCallId: 'call_needle' });
      store.finish(needle);
      for (let i = 0; i < 25; i++) store.finish(makeTrace({ toolCallId: `call_hay_${i}` }));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      let partialPages = 0;
      do {
        const page = store.list({ text: 'ee', cursor, limit: 5 });
        pages++;
        if (page.partial) partialPages++;
        seen.push(...page.items.map((item) => item.toolCallId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor && pages < 10);
      expect(seen).toEqual(['call_needle']);
      expect(partialPages).toBe(2);
      expect(pages).toBe(3);
      store.close();
    });

    it('searches every call, past the window, for a text of three characters or more', () => {
      const store = createStore();
      const needle = makeTrace({ toolCallId: 'call_needle' });
      store.finish(needle);
      for (let i = 0; i < 25; i++) store.finish(makeTrace({ toolCallId: `call_hay_${i}` }));
      const page = store.list({ text: 'eed', limit: 5 });
      expect(page).toMatchObject({ partial: false, nextCursor: null });
      expect(page.items.map((item) => item.toolCallId)).toEqual(['call_needle']);
      const hay = store.list({ text: 'HAY_', limit: 20 });
      expect(hay).toMatchObject({ partial: false });
      expect(hay.items).toHaveLength(20);
      const rest = store.list({ text: 'hay_', limit: 20, cursor: hay.nextCursor ?? undefined });
      expect(rest).toMatchObject({ partial: false, nextCursor: null });
      expect(rest.items).toHaveLength(5);
      // With another filter the search reads a window again (the filter is checked row by row).
      expect(store.list({ text: 'eed', tool: 'calculator', limit: 5 }).partial).toBe(true);
      store.close();
    });

    it('bounds the faulted filter (no index narrows it) and goes on with the cursor', () => {
      const store = createStore();
      const flags = { retried: false, fellBack: false, truncated: false, faulted: true, replayed: false };
      const faulted = makeTrace({ flags });
      store.finish(faulted);
      for (let i = 0; i < 25; i++) store.finish(makeTrace());
      const first = store.list({ faulted: true, limit: 5 });
      expect(first).toMatchObject({ items: [], partial: true });
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = store.list({ faulted: true, cursor, limit: 5 });
        seen.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor ?? undefined;
        if (!cursor) break;
      }
      expect(seen).toEqual([faulted.id]);
      store.close();
    });

    it('does not bound a single indexed filter', () => {
      const store = createStore();
      store.finish(makeTrace({ tool: 'rare' }));
      for (let i = 0; i < 25; i++) store.finish(makeTrace({ tool: 'common' }));
      const page = store.list({ tool: 'rare' });
      expect(page.items).toHaveLength(1);
      expect(page).toMatchObject({ partial: false, nextCursor: null });
      store.close();
    });
  });
}
