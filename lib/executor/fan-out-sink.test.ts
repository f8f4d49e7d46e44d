import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { createExecutor } from './executor';
import { createFanOutSink, type SecondarySink, type SinkEvent, secondaryFromTraceSink } from './fan-out-sink';
import { createRegistry } from './registry';
import type { TraceSink } from './types';

const echo = defineTool({
  name: 'echo',
  description: 'Says what it got.',
  inputSchema: z.object({ text: z.string() }),
  sideEffect: 'none',
  execute: ({ text }) => ({ text }),
});

/** Waits for something that happens on a later turn of the event loop. */
const poll = <T>(read: () => T) => expect.poll(read, { timeout: 10_000, interval: 5 });

/** A real executor on a real (in-memory) store, with the store's sink fanned out to `secondaries`. */
function setup(secondaries: SecondarySink[], options: Parameters<typeof createFanOutSink>[2] = {}) {
  const store = createMemoryTraceStore();
  const logs: string[] = [];
  const fanOut = createFanOutSink(store, secondaries, { log: (message) => logs.push(message), ...options });
  const executor = createExecutor({ registry: createRegistry([echo]), sink: fanOut.sink });
  const call = (text: string) => executor.execute({ name: 'echo', arguments: { text } }, { sessionId: 's' });
  return { store, fanOut, executor, call, logs };
}

/** A secondary sink that keeps what it is told, batch by batch. */
function recording(name: string, events?: SinkEvent['type'][]) {
  const batches: SinkEvent[][] = [];
  const sink: SecondarySink = { name, events, write: (batch) => void batches.push(batch) };
  const told = () => batches.flat().map((event) => `${event.type}:${event.record.status}`);
  return { sink, batches, told };
}

describe('createFanOutSink', () => {
  it('adds nothing when there is no secondary sink: the main sink is returned as it is', async () => {
    const store = createMemoryTraceStore();
    const fanOut = createFanOutSink(store, []);
    expect(fanOut.sink).toBe(store);
    expect(fanOut.stats()).toEqual([]);
    await expect(fanOut.flush()).resolves.toBe(true);
  });

  it('tells secondary sinks after the main sink, off the call’s path, in batches and in order', async () => {
    const all = recording('all');
    const finished = recording('finished only', ['finish']);
    const { store, fanOut, call } = setup([all.sink, finished.sink]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`hi ${i}`)));
    // The calls were answered before any secondary sink heard of them.
    expect(all.batches).toEqual([]);
    expect(results.every((r) => r.success)).toBe(true);
    await fanOut.flush();
    // Each call begins and finishes; the store had it first.
    expect(all.told().filter((t) => t.startsWith('begin'))).toHaveLength(20);
    expect(all.told().filter((t) => t === 'finish:succeeded')).toHaveLength(20);
    expect(finished.told()).toEqual(Array(20).fill('finish:succeeded'));
    // Batched: far fewer writes than events.
    expect(all.batches.length).toBeLessThan(5);
    for (const result of results) expect(store.get(result.traceId)?.status).toBe('succeeded');
    // In order per call: its begin before its finish.
    const order = all.batches.flat().map((event) => `${event.type}:${event.record.id}`);
    for (const result of results) {
      expect(order.indexOf(`begin:${result.traceId}`)).toBeLessThan(order.indexOf(`finish:${result.traceId}`));
    }
    expect(fanOut.stats()).toEqual([
      { name: 'all', queued: 0, written: 40, dropped: 0, failedBatches: 0 },
      { name: 'finished only', queued: 0, written: 20, dropped: 0, failedBatches: 0 },
    ]);
  });

  it('gives begin and update events the record as it was then, though the call goes on changing it', async () => {
    const all = recording('all');
    const { fanOut, call } = setup([all.sink]);
    const result = await call('hi');
    await fanOut.flush();
    const [begin, finish] = all.batches.flat();
    expect(begin?.type).toBe('begin');
    expect(begin?.record.status).toBe('running');
    expect(begin?.record.finishedAt).toBeNull();
    expect(finish?.record).toMatchObject({ id: result.traceId, status: 'succeeded', output: { text: 'hi' } });
  });

  it('a sink that throws or rejects fails no call, is logged once a minute with a count, and hears the next batch', async () => {
    const healthy = recording('healthy');
    let writes = 0;
    const throwing: SecondarySink = {
      name: 'throwing',
      write() {
        writes++;
        throw new Error('exporter exploded (expected by the test)');
      },
    };
    const rejecting: SecondarySink = {
      name: 'rejecting',
      write: () => Promise.reject(new Error('exporter refused (expected by the test)')),
    };
    const { store, fanOut, call, logs } = setup([throwing, rejecting, healthy.sink]);
    for (let i = 0; i < 3; i++) {
      const result = await call(`call ${i}`);
      expect(result).toMatchObject({ success: true, output: { text: `call ${i}` } });
      expect(store.get(result.traceId)?.status).toBe('succeeded');
      await fanOut.flush();
    }
    expect(writes).toBeGreaterThanOrEqual(3);
    expect(healthy.told().filter((t) => t.startsWith('finish'))).toHaveLength(3);
    const stats = fanOut.stats();
    expect(stats[0]?.failedBatches).toBe(writes);
    expect(stats[1]?.failedBatches).toBeGreaterThanOrEqual(3);
    // Once per sink within the minute, naming it and what went wrong.
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatch(/trace sink "throwing" failed; calls are not affected: exporter exploded/);
    expect(logs[1]).toMatch(/trace sink "rejecting" failed; calls are not affected: exporter refused/);
  });

  it('a sink that hangs holds up neither the calls nor the other sinks; its queue is bounded and its writes time out', async () => {
    const healthy = recording('healthy', ['finish']);
    const hung: SinkEvent[][] = [];
    const hanging: SecondarySink = {
      name: 'hanging',
      events: ['finish'],
      write: (batch) => {
        hung.push(batch);
        return new Promise(() => {});
      },
    };
    const { fanOut, call, logs } = setup([hanging, healthy.sink], { maxQueue: 5, maxBatch: 2, writeTimeoutMs: 3_000 });
    const started = performance.now();
    const results = [];
    for (let i = 0; i < 12; i++) {
      results.push(await call(`call ${i}`));
      // As requests arrive: on turns of their own, so the queues drain between them.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const elapsed = performance.now() - started;
    expect(results.every((r) => r.success)).toBe(true);
    // Twelve calls answered at once, though the hanging sink never answers.
    expect(elapsed).toBeLessThan(2_000);
    await poll(() => healthy.told().length).toBe(12);
    // The hanging sink got the first call (its write still pending), the next five filled its queue, the rest were dropped.
    expect(hung).toHaveLength(1);
    expect(fanOut.stats()[0]).toMatchObject({ name: 'hanging', written: 1, queued: 5, dropped: 6 });
    expect(
      logs.some((line) => /trace sink "hanging" is behind: dropped 1 event\(s\) \(queue of 5 full\)/.test(line)),
    ).toBe(true);
    // After its write times out, the next batch goes ahead.
    await poll(() => hung.length).toBeGreaterThanOrEqual(2);
    expect(logs.some((line) => /"hanging" failed; calls are not affected: no answer after 3000 ms/.test(line))).toBe(
      true,
    );
  });

  it('a slow sink does not slow the calls: they take as long as without it', async () => {
    const slow: SecondarySink = {
      name: 'slow',
      write: () => new Promise((resolve) => setTimeout(resolve, 100)),
    };
    const { fanOut, call } = setup([slow]);
    const started = performance.now();
    for (let i = 0; i < 10; i++) await call(`call ${i}`);
    // Ten sequential calls with a sink taking 100 ms a batch: were it on the path, two seconds at least.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await fanOut.flush(5_000)).toBe(true);
    expect(fanOut.stats()[0]).toMatchObject({ queued: 0, written: 20, dropped: 0 });
  });

  it('close() writes what is queued, then closes the sinks; later events are dropped', async () => {
    const all = recording('all', ['finish']);
    let closed = 0;
    const { fanOut, call } = setup([{ ...all.sink, close: () => void closed++ }]);
    await call('before');
    expect(await fanOut.close(2_000)).toBe(true);
    expect(all.told()).toEqual(['finish:succeeded']);
    expect(closed).toBe(1);
    await call('after');
    await fanOut.flush();
    expect(all.told()).toHaveLength(1);
    expect(fanOut.stats()[0]?.dropped).toBe(1);
  });

  it('close() gives up after its timeout when a sink will not finish', async () => {
    const { fanOut, call } = setup([{ name: 'stuck', write: () => new Promise(() => {}) }], { writeTimeoutMs: 60_000 });
    await call('hi');
    const started = performance.now();
    expect(await fanOut.close(100)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('a host’s TraceSink becomes a secondary sink: each event in turn, a failure failing the batch', async () => {
    const seen: string[] = [];
    const sink: TraceSink = {
      begin: (record) => void seen.push(`begin:${record.status}`),
      update: (record) => void seen.push(`update:${record.status}`),
      finish: async (record) => {
        seen.push(`finish:${record.status}`);
        throw new Error('finish failed (expected by the test)');
      },
    };
    const { fanOut, call, logs } = setup([secondaryFromTraceSink(sink, 'host sink')]);
    await call('hi');
    await fanOut.flush();
    expect(seen).toEqual(['begin:running', 'finish:succeeded']);
    expect(fanOut.stats()[0]?.failedBatches).toBe(1);
    expect(logs[0]).toMatch(/"host sink" failed; calls are not affected: finish failed/);
  });
});
