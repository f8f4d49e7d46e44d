import fs from 'node:fs';
import { type Config, loadConfig } from '../config';
import { openDatabase } from '../db/open-database';
import { createSqliteToolSeries, type ToolSeries } from '../db/sqlite-tool-series';
import { createSqliteTraceStore } from '../db/sqlite-trace-store';
import type { TraceStore } from '../db/trace-store';
import { createVault } from '../db/vault';
import { createTraceEvents, type TraceEvents } from '../events';
import { createExecutor, type Executor } from '../executor/executor';
import { defaultPolicy, type PolicyResolver } from '../executor/ports';
import { createRedactor } from '../executor/redact';
import { createRegistry } from '../executor/registry';
import type { TraceSink } from '../executor/types';
import { createBuiltinTools } from '../tools';

export interface Toolscope {
  config: Config;
  store: TraceStore;
  /** Per-tool calls, failures and latency over time, for the charts. */
  series: ToolSeries;
  executor: Executor;
  events: TraceEvents;
  policyOf: PolicyResolver;
  /** How many calls were marked interrupted at start. */
  interruptedAtStart: number;
  close(): void;
}

/** A sink that records through the store and tells live views. */
function publishingSink(store: TraceStore, events: TraceEvents): TraceSink {
  return {
    begin(record) {
      store.begin(record);
      events.publish(record, 'begin');
    },
    update(record) {
      store.update(record);
      events.publish(record, 'update');
    },
    finish(record) {
      store.finish(record);
      events.publish(record, 'finish');
    },
  };
}

/**
 * The composition root: wires config, SQLite store, vault, built-in tools and executor.
 * 1. loads and validates the config; creates the data and workspace folders;
 * 2. opens the database (WAL, migrations applied);
 * 3. marks calls a previous process left running as interrupted;
 * 4. builds the registry and the executor with the configured policies.
 */
export function createToolscope(config: Config = loadConfig()): Toolscope {
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.mkdirSync(config.workspace, { recursive: true });
  const db = openDatabase(config.dbPath);
  const store = createSqliteTraceStore({ db, vault: createVault({ dir: config.dataDir }) });
  const series = createSqliteToolSeries(db, { beforeRead: () => store.flush() });
  const interruptedAtStart = store.markInterrupted(Date.now());
  // The store commits finished calls a few ms late; write them before the process goes.
  process.once('exit', () => {
    try {
      store.flush();
    } catch (error) {
      console.error('[toolscope] could not write the last traces:', error);
    }
  });
  const events = createTraceEvents();
  const registry = createRegistry(
    createBuiltinTools({
      workspace: config.workspace,
      shellAllow: config.shellAllow,
      httpAllow: config.httpAllow,
      // A model must not drive Toolscope itself (read traces, later approve calls) through loopback.
      httpDeny: ['127.0.0.1', 'localhost', '[::1]'].map((host) => `${host}:${config.port}`),
      maxFileBytes: config.limits.maxFileBytes,
      maxResponseBytes: config.limits.maxResponseBytes,
    }),
  );
  const policyOf: PolicyResolver = (tool, sideEffect) => config.policies[tool] ?? defaultPolicy(tool, sideEffect);
  const executor = createExecutor({
    registry,
    sink: publishingSink(store, events),
    policy: policyOf,
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
    interruptedAtStart,
    close: () => store.close(),
  };
}
