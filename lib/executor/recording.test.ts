import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { createExecutor } from './executor';
import { createManualClock } from './manual-clock';
import type { RecordedResult, Recording } from './recording';
import { createRegistry } from './registry';

/** The executor's side of recording mode, with a recording that answers from a fixed list. */
let ran = 0;
const echo = defineTool({
  name: 'echo',
  description: 'Answers its text',
  sideEffect: 'exec',
  inputSchema: z.object({ text: z.string() }),
  execute: ({ text }) => {
    ran++;
    return { text };
  },
});

function setup() {
  const store = createMemoryTraceStore();
  const executor = createExecutor({ registry: createRegistry([echo]), sink: store, clock: createManualClock() });
  return { store, executor };
}

const recorded = (overrides: Partial<RecordedResult>): RecordedResult => ({
  traceId: 'rec-1',
  output: { text: 'recorded' },
  stdout: null,
  stderr: null,
  exitCode: null,
  error: null,
  modelMessage: '{"text":"recorded"}',
  modelTruncation: null,
  truncated: false,
  ...overrides,
});

function recording(result: RecordedResult | null, onMiss: 'run' | 'fail' = 'fail'): Recording & { asked: unknown[] } {
  const asked: unknown[] = [];
  return {
    sessionId: 'rec-session',
    onMiss,
    asked,
    take(tool, args) {
      asked.push([tool, args]);
      return result;
    },
  };
}

describe('recording mode in the executor', () => {
  it('answers a hit with the recorded outcome, never asking for approval nor running the tool', async () => {
    const { store, executor } = setup();
    const before = ran;
    const playback = recording(recorded({ stdout: 'out', stderr: 'err', exitCode: 0 }));
    const result = await executor.execute({ name: 'echo', arguments: '{"text":"hi"}' }, { recording: playback });
    expect(ran).toBe(before);
    expect(playback.asked).toEqual([['echo', { text: 'hi' }]]);
    expect(result).toMatchObject({ status: 'succeeded', success: true, output: { text: 'recorded' } });
    expect(result.metadata).toMatchObject({ attempts: 0, stderr: 'err', exitCode: 0 });
    const trace = store.get(result.traceId);
    expect(trace).toMatchObject({
      servedFrom: 'rec-1',
      status: 'succeeded',
      output: { text: 'recorded' },
      stdout: 'out',
      stderr: 'err',
      attempts: [],
      approval: null,
      modelMessage: '{"text":"recorded"}',
    });
    expect(trace?.stages.map((s) => [s.name, s.status])).toEqual([
      ['parse', 'ok'],
      ['validate', 'ok'],
      ['permission', 'skipped'],
      ['execute', 'skipped'],
      ['normalize', 'skipped'],
      ['trace', 'ok'],
    ]);
  });

  it("carries a recorded failure's status and error, and what a cut output gave the model", async () => {
    const { executor } = setup();
    const denied = await executor.execute(
      { name: 'echo', arguments: { text: 'x' } },
      {
        recording: recording(
          recorded({
            output: null,
            error: { code: 'PERMISSION_DENIED', message: 'No.', retryable: false, kind: 'permission' },
          }),
        ),
      },
    );
    expect(denied).toMatchObject({ status: 'denied', success: false, error: { code: 'PERMISSION_DENIED' } });
    const cut = await executor.execute(
      { name: 'echo', arguments: { text: 'x' } },
      {
        recording: recording(
          recorded({
            output: 'a'.repeat(100),
            modelMessage: 'aaa…[truncated]…aaa',
            modelTruncation: { headChars: 3, tailChars: 3, totalChars: 100 },
            truncated: true,
          }),
        ),
      },
    );
    expect(cut).toMatchObject({ status: 'succeeded', output: 'aaa…[truncated]…aaa', metadata: { truncated: true } });
  });

  it('fails a miss with RECORDING_MISS, or runs it through the pipeline with onMiss "run"', async () => {
    const { store, executor } = setup();
    const before = ran;
    const miss = await executor.execute({ name: 'echo', arguments: { text: 'x' } }, { recording: recording(null) });
    expect(miss).toMatchObject({ status: 'failed', error: { code: 'RECORDING_MISS', stage: 'execute' } });
    expect(miss.error?.message).toContain('"rec-session"');
    expect(ran).toBe(before);
    expect(store.get(miss.traceId)?.servedFrom).toBeNull();
    // With "run", the call goes on: this tool execs, so the default policy asks (and the default approver denies).
    const runs = await executor.execute(
      { name: 'echo', arguments: { text: 'x' } },
      { recording: recording(null, 'run') },
    );
    expect(runs).toMatchObject({ status: 'denied', error: { code: 'PERMISSION_DENIED' } });
  });

  it('validates before asking the recording', async () => {
    const { executor } = setup();
    const playback = recording(recorded({}));
    const invalid = await executor.execute({ name: 'echo', arguments: { text: 5 } }, { recording: playback });
    expect(invalid).toMatchObject({ status: 'failed', error: { code: 'INVALID_ARGUMENTS' } });
    expect(playback.asked).toEqual([]);
  });
});
