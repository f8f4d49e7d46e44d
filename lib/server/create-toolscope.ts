import fs from 'node:fs';
import path from 'node:path';
import { type Access, createAccess } from '../access/access';
import { createScopedPolicy } from '../access/key-scope';
import { type ApprovalQueue, createApprovalQueue } from '../approvals/approval-queue';
import { type ApprovalNotifier, createApprovalNotifier } from '../approvals/notify';
import { type Config, ConfigError, loadConfig, workspaceProblem } from '../config';
import { openDatabase, SERVER_BUSY_TIMEOUT_MS } from '../db/open-database';
import { startRetention } from '../db/retention';
import { createSqliteEventHistory } from '../db/sqlite-event-history';
import { createSqliteRecentCalls, type RecentCalls } from '../db/sqlite-recent-calls';
import { createSqliteToolCallLookup, type ToolCallLookup } from '../db/sqlite-tool-call-lookup';
import { createSqliteToolSeries, type ToolSeries } from '../db/sqlite-tool-series';
import { createSqliteTraceStore } from '../db/sqlite-trace-store';
import type { SealedArguments, StoredTrace, TraceStore } from '../db/trace-store';
import { isVaultError, type VaultError } from '../db/vault';
import { openDataFolderVault, type VaultHealth } from '../db/vault-state';
import { startWalCheckpointer } from '../db/wal-checkpointer';
import { createTraceEvents, type TraceEvents } from '../events';
import { createExecutor, type Executor } from '../executor/executor';
import { createFanOutSink, secondaryFromTraceSink } from '../executor/fan-out-sink';
import type { Approver, FaultSource, PolicyResolver } from '../executor/ports';
import { createRegistry } from '../executor/registry';
import type { AnyTool, CancelReason, Policy, SideEffect, TraceRecord, TraceSink } from '../executor/types';
import { createFaultStore, type FaultStore } from '../faults/fault-store';
import type { ToolRelabel } from '../mcp/upstream/upstream-server';
import { createUpstreamServers, type UpstreamServers } from '../mcp/upstream/upstream-servers';
import { createOtelExport } from '../otel/otel-export';
import { type OtelSettings, otelSettingsFromEnv } from '../otel/otel-settings';
import { childOfCallSpan } from '../otel/trace-context';
import { createPolicyStore, type PolicyStore } from '../policy/policy-store';
import { refuseShadowed } from '../policy/rule-shadowed';
import { replayFaultOf } from '../replay/replay-fault';
import { createBuiltinTools, createCalculatorPool, detectShellSandbox, type ShellSandbox } from '../tools';
import { admittingExecutor } from './admission';
import { acquireDataFolderLock } from './data-lock';
import { serverRedactor } from './server-redactor';
import type { OtelStatus } from './service-health';
import { endUnopenedApproval } from './unopened-approval';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Who the audit trail names for what Toolscope does of itself (a notification it gave up). */
const SYSTEM_PRINCIPAL = { id: 'toolscope', name: 'toolscope', role: 'none' } as const;

/**
 * Records a tool an upstream MCP server relabelled: by the server itself (`mcp_server:<name>`),
 * on the tool, with the hints and side effects before and after, and whether that loosened it.
 */
function auditRelabel(access: Access, server: string, relabel: ToolRelabel, config: Config): void {
  const trusted = config.mcpServers.find((entry) => entry.name === server)?.trustAnnotations === true;
  try {
    access.audit.append({
      principal: { id: `mcp_server:${server}`, name: `MCP server ${server}`, role: 'none' },
      kind: 'mcp_tool.relabelled',
      target: relabel.tool,
      detail: {
        server,
        tool: relabel.tool,
        changes: relabel.changes,
        side_effect_before: relabel.sideEffectBefore,
        side_effect_after: relabel.sideEffectAfter,
        annotations_before: relabel.before,
        annotations_after: relabel.after,
        trust_annotations: trusted,
      },
    });
  } catch (error) {
    console.error('[toolscope] could not write the audit entry (mcp_tool.relabelled):', error);
  }
}

export interface Toolscope {
  config: Config;
  /** Principals: keys, logins, local mode, and the audit trail (`lib/access`). */
  access: Access;
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
  /** The call recorded under a session, tool call id and principal: at most once per tool call id (`lib/calls`). */
  findCall: ToolCallLookup;
  /** Whether a principal may call a tool at all: a scoped key only its `tools` (the tool lists show it only those). */
  mayCall(principalId: string, tool: string): boolean;
  /** A tool's policy for calls of `sideEffect` that no rule about their arguments matches (the tools pages). */
  toolPolicy(tool: string, sideEffect: SideEffect): Policy;
  /** Calls waiting for a person: the approvals page and API decide them here. */
  approvals: ApprovalQueue;
  /** The webhooks of `approvals.notify`, told of every approval requested and decided. */
  notifier: ApprovalNotifier;
  /** The fault rules (the Faults page, `/api/v1/faults`): the executor asks them before every attempt. */
  faults: FaultStore;
  /** The upstream MCP servers of the config: their connections and status (`/api/v1/mcp/servers`). */
  upstream: UpstreamServers;
  /** OpenTelemetry export: whether it is on, where to, and its last failure (`GET /api/v1/health`). */
  otel: OtelStatus;
  /** What run_shell runs programs in (bubblewrap, or none and why): the start-up log and the tools page say. */
  shellSandbox: ShellSandbox;
  /** How many calls were marked interrupted at start. */
  interruptedAtStart: number;
  /** How many calls a previous process left awaiting approval were taken up again at start. */
  resumedAtStart: number;
  /** The vault key's state (`GET /api/v1/health`, the start-up log): ok, or missing, unusable or mismatched and what to do. */
  vaultHealth(): VaultHealth;
  /**
   * Stops taking calls (new ones are refused before they run), ends the event streams and
   * cancels the calls in flight, resolving once they are recorded. See `stopToolscope`.
   */
  stop(reason: CancelReason): Promise<void>;
  close(): void;
}

/**
 * A sink that records through the store and tells live views (progress only to views following
 * that call), approvals included: a write that says `awaiting_approval` is a request, the first
 * write after it with a decision is the decision. Once Toolscope is stopping it refuses to begin
 * new calls, so nothing starts that could not be recorded; once the store is closed, late writes
 * are dropped instead of throwing.
 */
function publishingSink(
  store: TraceStore,
  events: TraceEvents,
  lifecycle: { stopping: boolean; closed: boolean },
  notifier: ApprovalNotifier,
): TraceSink {
  // Calls whose request for approval was published and whose decision was not yet.
  const awaiting = new Set<string>();
  const publish = (record: TraceRecord, type: 'begin' | 'update' | 'finish') => {
    events.publish(record, type);
    if (!record.approval) return;
    if (record.status === 'awaiting_approval') {
      if (!awaiting.has(record.id) && record.approval.decision === null) {
        awaiting.add(record.id);
        events.publishApproval(record, 'requested');
        notifier.notify(record, 'requested');
      }
    } else if (record.approval.decision !== null && awaiting.delete(record.id)) {
      events.publishApproval(record, 'decided');
      notifier.notify(record, 'decided');
    }
  };
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
      publish(record, type);
      return;
    }
    // A finish being committed: live views hear of it once it is, like the caller, which the
    // executor answers only once this promise resolves. A failed commit is still published (the
    // call is answered all the same) and reaches the executor, which logs it.
    return saved.then(
      () => publish(record, type),
      (error: unknown) => {
        publish(record, type);
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
    step(record, step) {
      if (!lifecycle.closed) events.publish(record, step.type, step);
    },
  };
}

/**
 * Takes up the calls a previous process left awaiting approval: each waits again (same trace,
 * same expiry) through the executor, so the approvals queue lists it and deciding it runs it
 * from its sealed arguments; one that expired meanwhile ends APPROVAL_TIMEOUT at once.
 * A call of an MCP server's tool waits for the server's first attempt to connect (its tools are
 * not registered before): `ready` says what to wait for, null for a tool there is now.
 * One whose sealed arguments do not open (vault key missing or another one) goes to `unopened`.
 */
function resumePendingApprovals(
  store: TraceStore,
  executor: Executor,
  ready: (tool: string) => Promise<void> | null,
  unopened: (record: StoredTrace, error: VaultError) => void,
): number {
  let resumed = 0;
  let cursor: string | undefined;
  do {
    const page = store.list({ status: 'awaiting_approval', limit: 200, cursor });
    for (const summary of page.items) {
      const record = store.get(summary.id);
      if (record?.status !== 'awaiting_approval') continue;
      let sealed: SealedArguments | null;
      try {
        sealed = store.openSealedArguments(summary.id);
      } catch (error) {
        if (!isVaultError(error)) throw error;
        unopened(record, error);
        continue;
      }
      if (!sealed) continue;
      const approval = record.approval ?? {
        rule: 'pending before a restart',
        requestedAt: record.createdAt,
        expiresAt: null,
        decision: null,
        by: null,
        decidedAt: null,
        reason: null,
        ruleCreated: null,
      };
      const resume = () =>
        executor
          .execute(
            { id: record.toolCallId, name: record.tool, arguments: sealed.rawArguments },
            {
              traceId: record.id,
              sessionId: record.sessionId,
              actor: record.actor,
              principal: record.principal,
              metadata: record.metadata,
              // Lineage and batch survive the restart (a replay awaiting approval stays one).
              replayOf: record.replayOf ?? undefined,
              batchId: record.batchId ?? undefined,
              // So does a replay's one-off fault.
              fault: replayFaultOf(record),
              resume: { createdAt: record.createdAt, approval },
            },
          )
          .catch((error: unknown) => console.error(`[toolscope] could not take up pending call ${record.id}:`, error));
      const waitFor = ready(record.tool);
      if (waitFor) void waitFor.then(resume);
      else resume();
      resumed++;
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return resumed;
}

/** The fault rules, then (when none fires) the host's own fault source. */
function withExtraFaults(rules: FaultSource, extra: FaultSource | undefined): FaultSource {
  if (!extra) return rules;
  return {
    faultFor: (request) => rules.faultFor(request) ?? extra.faultFor(request),
    idle: () => (rules.idle?.() ?? false) && (extra.idle?.() ?? false),
  };
}

/**
 * The composition root: wires config, SQLite store, vault, built-in tools and executor.
 * 1. loads and validates the config, refuses a workspace holding Toolscope's own files;
 *    creates the data and workspace folders;
 * 2. builds the registry and the permission rules (config and policy.json), checked against it;
 * 3. takes the data folder's lock (`data-lock.ts`: a second process on the same folder refuses
 *    to start), opens the database (WAL, migrations applied) and starts its checkpoint thread;
 * 4. marks calls a previous process left running as interrupted, and starts retention;
 * 5. builds the executor with the rules' resolver.
 */
/** What a host adds to the composition root: the ports the next features plug into. */
export interface ToolscopeOptions {
  /** Decides `ask` calls instead of the approvals queue (tests, scripted approvals). */
  approver?: Approver;
  /** Faults injected into attempts when no fault rule fires (tests, scripted chaos). */
  faults?: FaultSource;
  /** Tools registered beside the built-in ones. */
  tools?: AnyTool[];
  /**
   * Sinks told of every call after the store (exporters), best-effort through the fan-out
   * (`lib/executor/fan-out-sink.ts`): batched off the call's path; one failing never fails a call.
   */
  sinks?: TraceSink[];
  /**
   * OpenTelemetry export (`lib/otel`); by default from the process's `OTEL_*` variables
   * (`otelSettingsFromEnv`: on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set); null: off.
   */
  otel?: OtelSettings | null;
}

export function createToolscope(config: Config = loadConfig(), options: ToolscopeOptions = {}): Toolscope {
  // A workspace that holds the data folder or the config file would hand them to the tools.
  const workspace = workspaceProblem(config);
  if (workspace) throw new ConfigError(workspace);
  // A bad OTEL_* value stops the start before anything opens.
  const otel = options.otel === undefined ? otelSettingsFromEnv() : options.otel;
  fs.mkdirSync(config.dataDir, { recursive: true });
  fs.mkdirSync(config.workspace, { recursive: true });
  // Started now, so the first calculator call does not wait for its workers to load mathjs.
  const calculatorPool = createCalculatorPool();
  calculatorPool.warm();
  const shellSandbox = detectShellSandbox(config.shellSandbox);
  const builtins: AnyTool[] = createBuiltinTools({
    workspace: config.workspace,
    shellAllow: config.shellAllow,
    shellSandbox,
    httpAllow: config.httpAllow,
    // A model must not drive Toolscope itself (read traces, later approve calls) through loopback.
    httpDeny: ['127.0.0.1', 'localhost', '[::1]'].map((host) => `${host}:${config.port}`),
    maxFileBytes: config.limits.maxFileBytes,
    maxResponseBytes: config.limits.maxResponseBytes,
    configFile: config.configPath,
    calculatorPool,
    // With OpenTelemetry, what http_request calls is a child of the call's span.
    propagation: otel ? childOfCallSpan : undefined,
    // `tools.<name>` of the config: timeout, attempts and circuit breaker over each tool's defaults.
    settings: config.tools,
  });
  const registry = createRegistry(builtins.concat(options.tools ?? []));
  // The server's own secrets (secret-named environment variables, MCP servers' header values)
  // are scrubbed, with secret shapes, from everything stored or shown, and from what servers say.
  const redactor = serverRedactor(config);
  // Their tools join the registry as they connect (after the start); until then, and while one is
  // down, the event bus tells live views of each change (`event: tools`).
  let toolsChanged: (server: string | null) => void = () => {};
  // A relabel is written to the audit trail (open once the database is): see auditRelabel.
  let relabelled: (server: string, relabel: ToolRelabel) => void = () => {};
  const upstream = createUpstreamServers({
    configs: config.mcpServers,
    registry,
    changed: (server) => toolsChanged(server),
    scrub: (text) => redactor.scrubText(text),
    relabelled: (server, relabel) => relabelled(server, relabel),
  });
  // Rules are checked against the tools before anything else opens: a bad rule stops the start.
  // A rule may name a tool of an MCP server that has not connected yet.
  const lookup = (name: string) => registry.get(name) ?? upstream.placeholder(name);
  let policy: PolicyStore;
  try {
    policy = createPolicyStore({
      configRules: config.permissions,
      policies: config.policies,
      configFile: config.configPath,
      dataFile: path.join(config.dataDir, 'policy.json'),
      lookup,
    });
  } catch (error) {
    void calculatorPool.close();
    throw error;
  }
  const lock = acquireDataFolderLock(config.dataDir);
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(config.dbPath, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
  } catch (error) {
    lock.release();
    void calculatorPool.close();
    throw error;
  }
  const access = createAccess({ db, config });
  relabelled = (server, relabel) => auditRelabel(access, server, relabel, config);
  // Calls of scoped keys weigh the key's own rules and tools with the global rules.
  const scopedPolicy = createScopedPolicy({
    global: () => policy.current(),
    keyOf: (id) => access.keys.byId(id),
    lookup,
  });
  const policyOf: PolicyResolver = scopedPolicy.resolve;
  // Checkpoints run on a thread of their own: on the event loop they stalled every request of their turn.
  const checkpointer = startWalCheckpointer(config.dbPath);
  // Never a new key while stored calls hold values sealed with a lost one (see `vault-state.ts`).
  const dataVault = openDataFolderVault(config.dataDir, db);
  const store = createSqliteTraceStore({ db, vault: dataVault.vault, maxQueued: config.limits.maxQueuedWrites });
  // 25 streams a turn: a busy batch to 200 streams is ~8 slices, with requests served between them.
  // A resume the ring cannot serve reads the calls begun, finished and decided since from the database.
  const events = createTraceEvents({
    streamsPerTurn: 25,
    history: createSqliteEventHistory(db, {
      lookbackMs: config.approvals.timeoutMs + 15 * 60_000,
      beforeRead: () => store.tryFlush(),
    }),
  });
  const serverNames = new Set(config.mcpServers.map((server) => server.name));
  toolsChanged = (server) => events.publishTools(server);
  registry.onChange((change) => {
    const servers = new Set(
      change.names.map((name) => {
        const server = name.split('__', 1)[0] as string;
        return name.includes('__') && serverNames.has(server) ? server : null;
      }),
    );
    for (const server of servers) events.publishTools(server);
  });
  // On the store's connection: a few rows read into memory; hits and draws written in batches.
  const faults = createFaultStore({ db, onChange: (type, ruleId) => events.publishFaultRule(type, ruleId) });
  const series = createSqliteToolSeries(db, { beforeRead: () => store.tryFlush() });
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
    try {
      faults.flush();
    } catch (error) {
      console.error("[toolscope] could not write the fault rules' last hits:", error);
    }
    // The OS drops the lock itself; this also removes the owner file, so the next start sees a clean stop.
    lock.release();
  });
  const approvals = createApprovalQueue({
    tools: (name) => registry.get(name),
    allowFromNowOn: ({ tool, specifier, session, call }) => {
      const rule = specifier ? `${tool}(${specifier})` : tool;
      const dataRules = policy.rules().filter((r) => r.source === 'data');
      refuseShadowed(policy.draft([...dataRules, { list: 'allow', rule, session }]), { tool, ...call }, rule);
      return policy.add('allow', rule, session).rule;
    },
  });
  // Nothing but the store's sink unless a host adds sinks or OpenTelemetry is on (zero cost then).
  const secondaries = (options.sinks ?? []).map((sink, i) => secondaryFromTraceSink(sink, `extra sink ${i + 1}`));
  const otelStatus: OtelStatus = { enabled: otel !== null, endpoint: null, lastError: null };
  if (otel) {
    const toolInfo = (name: string) => ({ type: 'function' as const, description: registry.get(name)?.description });
    // What it says once started is a failure (what it says while starting, a setting's warning).
    let started = false;
    const log = (message: string) => {
      if (started) otelStatus.lastError = { message: message.slice(0, 500), at: Date.now() };
      console.error(message);
    };
    const exporter = createOtelExport(otel, { toolInfo, log });
    started = true;
    const url = new URL(otel.tracesUrl);
    otelStatus.endpoint = `${url.origin}${url.pathname}`;
    secondaries.push(exporter.sink);
    // Said when the environment turned it on (a host passing settings knows).
    if (options.otel === undefined) console.log(`[toolscope] ${exporter.sink.name}: exporting calls as spans`);
  }
  const notifier = createApprovalNotifier({
    targets: config.approvals.notify,
    linkBase:
      config.approvals.linkBase ??
      `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`,
    onFailure: (failure) => {
      try {
        access.audit.append({
          principal: SYSTEM_PRINCIPAL,
          kind: 'notify.failed',
          target: failure.trace_id,
          detail: { ...failure },
        });
      } catch (error) {
        console.error('[toolscope] could not write the audit entry (notify.failed):', error);
      }
      console.error(
        `[toolscope] notifying ${failure.target} of ${failure.type} ${failure.trace_id} failed: ${failure.error}`,
      );
    },
  });
  const sinks = createFanOutSink(publishingSink(store, events, lifecycle, notifier), secondaries);
  // Every call is admitted by the store first: none starts that it could not record.
  const executor = admittingExecutor(
    createExecutor({
      registry,
      sink: sinks.sink,
      policy: policyOf,
      approver: options.approver ?? approvals,
      approvalTimeoutMs: config.approvals.timeoutMs,
      faults: withExtraFaults(faults, options.faults),
      configFile: config.configPath,
      redactor,
      limits: { maxModelOutputChars: config.limits.maxModelOutputChars, maxTraceBytes: config.limits.maxTraceBytes },
    }),
    store,
  );
  // Connecting does not hold up the start: the app serves while the servers come up.
  upstream.start();
  // A pending call whose sealed arguments do not open ends failed, alone; the start goes on.
  let unopened = 0;
  const resumedAtStart = resumePendingApprovals(
    store,
    executor,
    (tool) => (registry.get(tool) ? null : upstream.firstAttempt(tool)),
    (record, error) => {
      const ended = endUnopenedApproval(store, record, error, Date.now());
      if (!ended) return;
      unopened++;
      events.publish(ended, 'finish');
      console.error(`[toolscope] pending call ${record.id} ended VAULT_KEY_MISMATCH: ${error.message}`);
    },
  );
  dataVault.unopenedAtStart(unopened);
  return {
    config,
    access,
    store,
    series,
    executor,
    events,
    policyOf,
    policy,
    recentCalls: createSqliteRecentCalls(db, { beforeRead: () => store.tryFlush() }),
    findCall: createSqliteToolCallLookup(db),
    toolPolicy: (tool, sideEffect) => policy.toolPolicy(tool, sideEffect).policy,
    mayCall: scopedPolicy.mayCall,
    approvals,
    notifier,
    faults,
    upstream,
    otel: otelStatus,
    shellSandbox,
    interruptedAtStart,
    resumedAtStart,
    vaultHealth: dataVault.health,
    async stop(reason) {
      lifecycle.stopping = true;
      events.closeAll();
      // Calls waiting for a person stay pending on disk: the next start takes them up again.
      await executor.cancelAll(reason, { keepAwaitingApproval: true });
      // Once their calls are cancelled (upstream too), the MCP servers' processes end, while
      // what exporters still hold goes out, within the shutdown's deadline.
      await Promise.all([upstream.close(), sinks.close(1_500)]);
    },
    close() {
      if (lifecycle.closed) return;
      lifecycle.closed = true;
      void upstream.close();
      void sinks.close();
      notifier.close();
      retention.stop();
      void calculatorPool.close();
      void checkpointer.stop();
      try {
        faults.close();
      } catch (error) {
        console.error("[toolscope] could not write the fault rules' last hits:", error);
      }
      store.close();
      lock.release();
    },
  };
}
