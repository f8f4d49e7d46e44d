/**
 * The figures of issue 12 measured in this process beside their references:
 * - LangChain's `tool.invoke` on the same no-op tool and zod schema (no persistence at all): the
 *   reference row for the executor's per-call overhead;
 * - a batch of mixed durations under `max_concurrency`, against the ideal schedule (a pool of c
 *   workers each taking the next call when free) and against fixed chunks of c on the same batch
 *   (the naive `Promise.all` per chunk, which waits for each chunk's slowest call);
 * - timeouts: a tool that ignores its signal, with a 100 ms timeout, and `run_shell` running a
 *   `sleep` past its 100 ms timeout, with the time until its processes are gone after the answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tool as langchainTool } from '@langchain/core/tools';
import { z } from 'zod';
import { createMemoryTraceStore } from '../lib/db/memory-trace-store';
import { defineTool } from '../lib/executor/define-tool';
import { createExecutor } from '../lib/executor/executor';
import { createRegistry } from '../lib/executor/registry';
import type { ToolCall } from '../lib/executor/types';
import { createRunShellTool } from '../lib/tools/run-shell';
import { median, percentile } from './percentile';

const schema = z.object({ n: z.number() });

export interface InvokeFigures {
  p50Us: number;
  p99Us: number;
  meanUs: number;
}

/** LangChain's `tool.invoke` with a tool call (it answers a ToolMessage), `calls` sequential calls after a warm-up; median of `runs`. */
export async function measureLangchainInvoke(calls: number, runs: number): Promise<InvokeFigures> {
  const noop = langchainTool(async (_input: { n: number }) => ({ ok: true }), {
    name: 'noop',
    description: 'Does nothing',
    schema,
  });
  const toolCall = { id: 'call_bench', name: 'noop', args: { n: 1 }, type: 'tool_call' as const };
  const figures: InvokeFigures[] = [];
  for (let run = 0; run < runs; run++) {
    for (let i = 0; i < Math.min(10_000, calls / 10); i++) await noop.invoke(toolCall);
    const samples = new Float64Array(calls);
    for (let i = 0; i < calls; i++) {
      const start = process.hrtime.bigint();
      await noop.invoke(toolCall);
      samples[i] = Number(process.hrtime.bigint() - start) / 1000;
    }
    const meanUs = samples.reduce((sum, sample) => sum + sample, 0) / calls;
    samples.sort();
    figures.push({ p50Us: percentile(samples, 0.5), p99Us: percentile(samples, 0.99), meanUs });
  }
  return {
    p50Us: median(figures.map((f) => f.p50Us)),
    p99Us: median(figures.map((f) => f.p99Us)),
    meanUs: median(figures.map((f) => f.meanUs)),
  };
}

/** Durations (ms) of the benchmark batch: long and short calls mixed, so fixed chunks wait. */
export const BATCH_DURATIONS_MS = [80, 10, 10, 10, 60, 20, 20, 40, 10, 30, 50, 10, 70, 20, 10, 30, 15, 45, 5, 25];
export const BATCH_CONCURRENCY = 4;

/** The makespan of a pool of `workers`, each taking the next duration (in order) when it is free. */
export function idealMakespan(durations: readonly number[], workers: number): number {
  const free = new Array<number>(Math.min(workers, durations.length)).fill(0);
  for (const duration of durations) {
    let earliest = 0;
    for (let w = 1; w < free.length; w++) if ((free[w] as number) < (free[earliest] as number)) earliest = w;
    free[earliest] = (free[earliest] as number) + duration;
  }
  return Math.max(0, ...free);
}

/** The makespan of fixed chunks of `size`: each chunk waits for its slowest call. */
export function chunkedMakespan(durations: readonly number[], size: number): number {
  let total = 0;
  for (let i = 0; i < durations.length; i += size) total += Math.max(...durations.slice(i, i + size));
  return total;
}

export interface BatchFigures {
  calls: number;
  concurrency: number;
  idealMs: number;
  poolMs: number;
  chunkedIdealMs: number;
  chunkedMs: number;
}

/** The batch through `executeBatch` (the executor's pool) and through fixed chunks of the same executor's `execute`; median of `runs`. */
export async function measureBatchSchedule(runs: number): Promise<BatchFigures> {
  const sleep = defineTool({
    name: 'sleep',
    description: 'Waits ms milliseconds',
    sideEffect: 'none',
    inputSchema: z.object({ ms: z.number() }),
    execute: ({ ms }) => new Promise<{ ms: number }>((resolve) => setTimeout(() => resolve({ ms }), ms)),
  });
  const executor = createExecutor({
    registry: createRegistry([sleep]),
    sink: createMemoryTraceStore({ capacity: 10_000 }),
  });
  const calls: ToolCall[] = BATCH_DURATIONS_MS.map((ms, i) => ({
    id: `call_${i}`,
    name: 'sleep',
    arguments: JSON.stringify({ ms }),
  }));
  const timed = async (run: () => Promise<unknown>) => {
    const start = performance.now();
    await run();
    return performance.now() - start;
  };
  const pool: number[] = [];
  const chunked: number[] = [];
  await executor.executeBatch(calls.slice(0, 4), { maxConcurrency: BATCH_CONCURRENCY });
  for (let run = 0; run < runs; run++) {
    pool.push(await timed(() => executor.executeBatch(calls, { maxConcurrency: BATCH_CONCURRENCY })));
    chunked.push(
      await timed(async () => {
        for (let i = 0; i < calls.length; i += BATCH_CONCURRENCY) {
          await Promise.all(calls.slice(i, i + BATCH_CONCURRENCY).map((call) => executor.execute(call)));
        }
      }),
    );
  }
  return {
    calls: calls.length,
    concurrency: BATCH_CONCURRENCY,
    idealMs: idealMakespan(BATCH_DURATIONS_MS, BATCH_CONCURRENCY),
    poolMs: median(pool),
    chunkedIdealMs: chunkedMakespan(BATCH_DURATIONS_MS, BATCH_CONCURRENCY),
    chunkedMs: median(chunked),
  };
}

export interface TimeoutFigures {
  /** A tool that ignores its signal, timeout 100 ms: until its TIMEOUT result. */
  toolAnsweredMs: number;
  /** run_shell `sleep` with a 100 ms timeout: until its TIMEOUT result. */
  shellAnsweredMs: number;
  /** After that answer, until no process of the call is left (max over runs' median). */
  shellGoneAfterMs: number;
  shellError: string | null;
}

/** Whether any process's command line still holds `marker`. */
function processWith(marker: string): boolean {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) return true;
    } catch {
      // Gone while we looked.
    }
  }
  return false;
}

/** Both timeouts, `runs` times each; each figure the median. */
export async function measureTimeouts(runs: number): Promise<TimeoutFigures> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-bench-timeouts-'));
  const stuck = defineTool({
    name: 'stuck',
    description: 'Never answers and ignores its signal',
    sideEffect: 'none',
    inputSchema: z.object({}),
    timeoutMs: 100,
    retry: { maxAttempts: 1 },
    execute: () => new Promise<never>(() => {}),
  });
  const shell = createRunShellTool({ workspace, allow: ['sleep'], timeoutMs: 100 });
  const executor = createExecutor({
    registry: createRegistry([stuck, shell]),
    sink: createMemoryTraceStore({ capacity: 1_000 }),
    policy: () => 'allow',
  });
  const tool: number[] = [];
  const answered: number[] = [];
  const gone: number[] = [];
  let shellError: string | null = null;
  try {
    for (let run = 0; run < runs; run++) {
      let start = performance.now();
      await executor.execute({ id: `stuck_${run}`, name: 'stuck', arguments: '{}' });
      tool.push(performance.now() - start);
      // A duration no other process has on its command line, so /proc tells when this one is gone.
      const marker = `30.${process.pid}${run}${Date.now() % 100_000}`;
      start = performance.now();
      const result = await executor.execute({
        id: `shell_${run}`,
        name: 'run_shell',
        arguments: JSON.stringify({ command: ['sleep', marker] }),
      });
      const answeredAt = performance.now();
      answered.push(answeredAt - start);
      if (result.error?.code !== 'TIMEOUT') shellError = `${result.error?.code ?? 'success'}: ${result.error?.message}`;
      while (processWith(marker) && performance.now() - answeredAt < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      gone.push(performance.now() - answeredAt);
    }
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  return {
    toolAnsweredMs: median(tool),
    shellAnsweredMs: median(answered),
    shellGoneAfterMs: median(gone),
    shellError,
  };
}
