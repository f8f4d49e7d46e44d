/**
 * A process for crash tests: records calls through the executor and the real SQLite store,
 * IN_FLIGHT at a time, until it is killed, and prints `<trace id> <status>` for each call once
 * `execute` resolved — which the executor does only after `store.finish` resolved, that is once
 * the final record is committed. What it printed is what it "answered".
 * Run: node --import tsx lib/db/testing/record-until-killed.ts <data dir> [in flight]
 */
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import { createExecutor } from '../../executor/executor';
import { createRegistry } from '../../executor/registry';
import type { ToolCall } from '../../executor/types';
import { createSqliteTraceStore } from '../sqlite-trace-store';
import { openTestDatabase } from '../test-database';
import { createVault } from '../vault';

const [dir, inFlightArg] = process.argv.slice(2);
if (!dir) throw new Error('usage: record-until-killed.ts <data dir> [in flight]');
const IN_FLIGHT = Number(inFlightArg ?? 50);

const input = z.object({ n: z.number() });
/** Yields to the event loop now and then, so calls finish in different turns as requests do. */
const sometimesLater = (n: number) => (n % 3 === 0 ? new Promise((resolve) => setImmediate(resolve)) : undefined);
const registry = createRegistry([
  defineTool({
    name: 'ok',
    description: 'Succeeds',
    sideEffect: 'none',
    inputSchema: input,
    execute: async ({ n }) => {
      await sometimesLater(n);
      return { n };
    },
  }),
  defineTool({
    name: 'fails',
    description: 'Fails, not retryable',
    sideEffect: 'read',
    inputSchema: input,
    retry: { maxAttempts: 1 },
    execute: async ({ n }) => {
      await sometimesLater(n);
      throw new Error(`no ${n}`);
    },
  }),
  // A side effect: its start is committed before it runs, and the default approver denies it.
  defineTool({ name: 'writes', description: 'Denied', sideEffect: 'write', inputSchema: input, execute: () => null }),
]);

const db = openTestDatabase(dir);
const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
store.markInterrupted(Date.now());
const executor = createExecutor({ registry, sink: store });
const tools = ['ok', 'ok', 'fails', 'writes'];

let n = 0;
async function worker(): Promise<never> {
  for (;;) {
    n += 1;
    const call: ToolCall = { name: tools[n % tools.length] as string, arguments: { n } };
    if (n % 7 === 0) call.arguments = '{"n": '; // rejected at parse: finished without begin
    const result = await executor.execute(call);
    process.stdout.write(`${result.traceId} ${result.status}\n`);
  }
}

for (let i = 0; i < IN_FLIGHT; i++) void worker();
