import fs from 'node:fs';
import path from 'node:path';
import { type Config, loadConfig } from '../config';
import { openDatabase } from '../db/open-database';
import { startRetention } from '../db/retention';
import { createSqliteRecentCalls, type RecentCalls } from '../db/sqlite-recent-calls';
import { createSqliteToolSeries, type ToolSeries } from '../db/sqlite-tool-series';
import { createSqliteTraceStore } from '../db/sqlite-trace-store';
import type { TraceStore } from '../db/trace-store';
import { createVault } from '../db/vault';
import { startWalCheckpointer } from '../db/wal-checkpointer';
import { createTraceEvents, type TraceEvents } from '../events';
import { createExecutor, type Executor } from '../executor/executor';
import type { PolicyResolver } from '../executor/ports';
import { createRedactor } from '../executor/redact';
import { createRegistry } from '../executor/registry';
import type { CancelReason, Policy, SideEffect, TraceRecord, TraceSink } from '../executor/types';
import { createPolicyStore, type PolicyStore } from '../policy/policy-store';
import { createBuiltinTools, createCalculatorPool } from '../tools';
import { acquireDataFolderLock } from './data-lock';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface Toolscope {
  config: Config;
  store: TraceStore;
  /** Per-tool calls, failures and latency over time, for the charts. */
  series: ToolSeries;
  executor: Executor;
  events: TraceEvents;
  policyOf: PolicyResolver;
  /** The permission rules: the config's and the data folder's (policy.json), editable at runtime. */
  policy: PolicyStore;
  /** The newest recorded calls as a policy sees them (redacted arguments), for the rules preview. */
  recentCalls: RecentCalls;
  /** A tool's policy for calls of `sideEffect` that no rule about their arguments matches (the tools pages). */
  toolPolicy(tool: string, sideEffect: SideEffect): Policy;
  /** How many calls were marked interrupted at start. */
  interruptedAtStart: number;
  /**
   * Stops taking calls (new ones are refused before they run), ends the event streams and
   * cancels the calls in flight, resolving once they are recorded. See `stopToolscope`.
   */
  stop(reason: CancelReason): Promise<void>;
  close(): void;
}

/**
 * A sink that records through the store and tells live views (progress only to views following
 * that call). Once Toolscope is stopping it refuses to begin new calls, so nothing starts that
 * could not be recorded; once the store is closed, late writes are dropped instead of throwing.
 */
function publishingSink(
  store: TraceStore,
  events: TraceEvents,
  lifecycle: { stopping: boolean; closed: boolean },
): TraceSink {
  const write = (
    record: TraceRecord,
    type: 'begin' | 'update' | 'finish',
    save: (r: TraceRecord) => void | Promise<void>,
  ): void | Promise<void> => {
    if (lifecycle.closed) {
      console.error(`[toolscope] trace ${record.id} (${type}) arrived after the store was closed; not recorded`);
      return;
    }
    const saved = save(record);
    if (!saved) {
      events.publish(record, type);
      return;
    }
    // A finish being committed: live views hear of it once it is, like the caller, which the
    // executor answers only once this promise resolves. A failed commit is still published (the
    // call is answered all the same) and reaches the executor, which logs it.
    return saved.then(
      () => events.publish(record, type),
      (error: unknown) => {
        events.publish(record, type);
        throw error;
      },
    );
  };
  return {
    begin(record) {
      if (lifecycle.stopping) throw new Error('Toolscope is shutting down');
      write(record, 'begin', (r) => store.begin(r));
    },
    update: (record) => write(record, 'update', (r) => store.update(r)),
    finish: (record) => write(record, 'finish', (r) => store.finish(r)),
    progress(record) {
      if (!lifecycle.closed) events.publish(record, 'progress');
    },
  };
}

/**
 * The composition root: wires config, SQLite store, vault, built-in tools and executor.
 * 1. loads and validates the config; creates the data and workspace folders;
 * 2. builds the registry and the permission rules (config and policy.json), checked against it;
 * 3. takes the data folder's lock (`data-lock.ts`: a second process on the same folder refuses
 *    to start), opens the database (WAL, migrations applied) and starts its checkpoint thread;
 * 4. marks calls a previous process left running as interrupted, and starts retention;
 * 5. builds the executor with the rules' resolver.
 */
export function createToolscope(config: Config = loadConfig()): Toolscope {
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.mkdirSync(config.workspace, { recursive: true });
  // Started now, so the first calculator call does not wait for its workers to load mathjs.
  const calculatorPool = createCalculatorPool();
  calculatorPool.warm();
  const registry = createRegistry(
    createBuiltinTools({
      workspace: config.workspace,
      shellAllow: config.shellAllow,
      httpAllow: config.httpAllow,
      // A model must not drive Toolscope itself (read traces, later approve calls) through loopback.
      httpDeny: ['127.0.0.1', 'localhost', '[::1]'].map((host) => `${host}:${config.port}`),
      maxFileBytes: config.limits.maxFileBytes,
      maxResponseBytes: config.limits.maxResponseBytes,
      configFile: config.configPath,
      calculatorPool,
    }),
  );
  // Rules are checked against the tools before anything else opens: a bad rule stops the start.
  let policy: PolicyStore;
  try {
    policy = createPolicyStore({
      configRules: config.permissions,
      policies: config.policies,
      configFile: config.configPath,
      dataFile: path.join(config.dataDir, 'policy.json'),
      lookup: registry.get,
    });
  } catch (error) {
    void calculatorPool.close();
    throw error;
  }
  const policyOf = policy.resolve;
  const lock = acquireDataFolderLock(config.dataDir);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(config.dbPath);
  } catch (error) {
    lock.release();
    void calculatorPool.close();
    throw error;
  }
  // Checkpoints run on a thread of their own: on the event loop they stalled every request of their turn.
  const checkpointer = startWalCheckpointer(config.dbPath);
  const store = createSqliteTraceStore({ db, vault: createVault({ dir: config.dataDir }) });
  const series = createSqliteToolSeries(db, { beforeRead: () => store.flush() });
  const interruptedAtStart = store.markInterrupted(Date.now());
  // Charts read minute buckets for a day and hour buckets for a week; keep a little more.
  const retention = startRetention({
    store,
    retention: config.retention,
    afterSweep: (now) => series.prune(now - 8 * DAY_MS, now - 2 * DAY_MS),
  });
  const lifecycle = { stopping: false, closed: false };
  // Queued writes (a call begun without side effect, or one whose commit failed): write them before the process goes.
  process.once('exit', () => {
    if (lifecycle.closed) return;
    try {
      store.flush();
    } catch (error) {
      console.error('[toolscope] could not write the last traces:', error);
    }
    // The OS drops the lock itself; this also removes the owner file, so the next start sees a clean stop.
    lock.release();
  });
  const events = createTraceEvents();
  const executor = createExecutor({
    registry,
    sink: publishingSink(store, events, lifecycle),
    policy: policyOf,
    configFile: config.configPath,
    redactor: createRedactor(config.redactKeys),
    limits: { maxModelOutputChars: config.limits.maxModelOutputChars, maxTraceBytes: config.limits.maxTraceBytes },
  });
  return {
    config,
    store,
    series,
    executor,
    events,
    policyOf,
    policy,
    recentCalls: createSqliteRecentCalls(db, { beforeRead: () => store.flush() }),
    toolPolicy: (tool, sideEffect) => policy.toolPolicy(tool, sideEffect).policy,
    interruptedAtStart,
    async stop(reason) {
      lifecycle.stopping = true;
      events.closeAll();
      await executor.cancelAll(reason);
    },
    close() {
      if (lifecycle.closed) return;
      lifecycle.closed = true;
      retention.stop();
      void calculatorPool.close();
      void checkpointer.stop();
      store.close();
      lock.release();
    },
  };
}
