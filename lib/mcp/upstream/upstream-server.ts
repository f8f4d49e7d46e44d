import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from '../../config';
import { boundText } from '../../executor/bound-error';
import { ToolError } from '../../executor/errors';
import type {
  AnyTool,
  OutputReporter,
  PermissionSubject,
  SideEffect,
  ToolAvailability,
  ToolContext,
} from '../../executor/types';
import { createBoundedFetch } from './bounded-fetch';
import { outputOfCallResult } from './call-result';
import { MAX_STDIO_MESSAGE_BYTES, OVERSIZED_MESSAGE_CODE } from './line-reader';
import { type ServerPaths, serverPathsOf } from './path-arguments';
import { createUpstreamPathSubject } from './path-subject';
import { causeOf, exitClause, listAllTools, progressLine } from './server-talk';
import { StdioProcessTransport } from './stdio-transport';
import {
  createUpstreamTool,
  labelChanges,
  labelOf,
  sideEffectOfMcpTool,
  type ToolLabel,
  type UpstreamToolHost,
  upstreamToolName,
} from './upstream-tool';

/**
 * Where a server's connection stands: `connecting` (a first attempt or a reconnect in progress),
 * `connected`, `failed` (an attempt to connect failed), `disconnected` (a connection was lost:
 * the process exited, the endpoint went away), `closed` (Toolscope stopped it).
 */
export type ServerState = 'connecting' | 'connected' | 'failed' | 'disconnected' | 'closed';

/** One server as the API and the tools page show it. */
export interface UpstreamServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: ServerState;
  protocolVersion: string | null;
  serverInfo: { name: string; version: string } | null;
  /** Its tools as registered (`<server>__<tool>`), kept while it is down. */
  tools: string[];
  /** Why it is not connected (a clause: `it exited with code 1`), or why tools were skipped; null when all is well. */
  error: string | null;
  /** A stdio server's last stderr lines (at most STDERR_TAIL_LINES). */
  stderrTail: string[];
  /** Epoch ms of the current connection; null while not connected. */
  connectedAt: number | null;
  /** Epoch ms of the next attempt to connect; null when none is scheduled. */
  nextRetryAt: number | null;
  /** The last relabel of each tool relabelled since the start, oldest first. */
  relabels: ToolRelabel[];
}

/**
 * A tool whose annotations the server changed after it first listed it (a later tools/list,
 * after `notifications/tools/list_changed` or a reconnect): the hints before and after, and the
 * side effect before and after (what the tool has now).
 */
export interface ToolRelabel {
  /** Its registered name, `<server>__<tool>`. */
  tool: string;
  /** Epoch ms. */
  at: number;
  before: ToolLabel;
  after: ToolLabel;
  /** One line a hint that changed: `readOnlyHint true → false`. */
  changes: string[];
  sideEffectBefore: SideEffect;
  sideEffectAfter: SideEffect;
}

/** How far a side effect reaches: a relabel that lowers it loosens the tool. */
const REACH: Record<SideEffect, number> = { none: 0, read: 1, write: 2, exec: 3 };
/** At most this many relabels are kept for the status (the latest of each tool). */
const MAX_RELABELS = 200;
/** At most this many tools' labels are kept (a tool no longer listed keeps its own, the oldest go first). */
const MAX_LABELS = 5_000;

export const STDERR_TAIL_LINES = 50;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
const CONNECT_TIMEOUT_MS = 20_000;
/**
 * A stdio server's stderr and stdout are two pipes: lines it wrote before answering may be read
 * just after the answer. A call waits this long after its answer for them.
 */
const STDERR_GRACE_MS = 15;

export interface UpstreamServerDeps {
  config: McpServerConfig;
  /** Makes `tools` this server's tools in the registry (throws on a name another tool holds). */
  setTools(tools: AnyTool[]): void;
  /** The state, the error or the tools changed: live views refetch. */
  changed(): void;
  /**
   * Scrubs secrets from what the server says (stderr lines, errors) before it is kept or shown:
   * secret-shaped values, and the configured header values.
   */
  scrub?: (text: string) => string;
  /** Told of each relabel once the tool has its new side effect (the audit trail records it). */
  relabelled?: (relabel: ToolRelabel) => void;
  random?: () => number;
}

/**
 * One upstream MCP server: its connection through the SDK's `Client`, its tools, its calls.
 * 1. `connect` starts the process (stdio) or opens the session (HTTP), initializes, lists the
 *    tools (every page) and registers them as `<server>__<tool>`.
 * 2. A failed attempt or a lost connection keeps the tools registered but unavailable, and
 *    schedules the next attempt: 1 s, doubling to 30 s, with jitter; `reconnect` tries at once.
 * 3. `notifications/tools/list_changed` lists the tools again; a tool whose annotations changed
 *    since it was first listed is relabelled (`ToolRelabel`: kept, logged and told to `relabelled`).
 *    Without `trustAnnotations` annotations never set a side effect, so nothing can loosen one.
 * 4. A call goes through `client.callTool` with the attempt's signal (an aborted attempt sends
 *    `notifications/cancelled` upstream), its progress as `progress n/total: message` lines on
 *    stdout, and the stderr lines the server writes meanwhile on its stderr.
 * Every connection has a generation: callbacks of a connection since replaced are ignored.
 */
export class UpstreamServer implements UpstreamToolHost {
  readonly name: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly trustAnnotations: boolean;
  readonly tools: McpServerConfig['tools'];
  /** Its roots and home, for the path subjects of its tools. */
  readonly paths: ServerPaths;
  private state: ServerState = 'connecting';
  private client: Client | null = null;
  private protocolVersion: string | null = null;
  private serverInfo: { name: string; version: string } | null = null;
  private toolNames: string[] = [];
  private error: string | null = null;
  private readonly stderrTail: string[] = [];
  private connectedAt: number | null = null;
  private nextRetryAt: number | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private generation = 0;
  /** Where the calls running now report output: a stderr line goes to each. */
  private readonly calls = new Set<OutputReporter>();
  private readonly random: () => number;
  private readonly scrub: (text: string) => string;
  /** Each tool's path subject, by registered name: the same object for the tool and its placeholder. */
  private readonly subjects = new Map<string, PermissionSubject<unknown>>();
  /** Each registered tool's input schema, as last listed. */
  private schemas = new Map<string, unknown>();
  /** Each tool's label and side effect as last installed, kept across reconnects (a relabel is against it). */
  private readonly labels = new Map<string, { label: ToolLabel; sideEffect: SideEffect }>();
  private readonly relabels = new Map<string, ToolRelabel>();

  constructor(private readonly deps: UpstreamServerDeps) {
    const { config } = deps;
    this.name = config.name;
    this.timeoutMs = config.timeoutMs;
    this.retries = config.retries;
    this.trustAnnotations = config.trustAnnotations;
    this.tools = config.tools;
    this.paths = serverPathsOf(config);
    this.random = deps.random ?? Math.random;
    this.scrub = deps.scrub ?? ((text) => text);
  }

  status(): UpstreamServerStatus {
    return {
      name: this.name,
      transport: this.deps.config.transport,
      state: this.state,
      protocolVersion: this.protocolVersion,
      serverInfo: this.serverInfo,
      tools: [...this.toolNames],
      error: this.error,
      stderrTail: [...this.stderrTail],
      connectedAt: this.state === 'connected' ? this.connectedAt : null,
      nextRetryAt: this.nextRetryAt,
      relabels: [...this.relabels.values()],
    };
  }

  pathSubject(name: string): PermissionSubject<unknown> {
    let subject = this.subjects.get(name);
    if (!subject) {
      subject = createUpstreamPathSubject({ paths: this.paths, schema: () => this.schemas.get(name) });
      this.subjects.set(name, subject);
    }
    return subject;
  }

  availability(): ToolAvailability {
    if (this.state === 'connected') return { available: true, reason: null };
    return { available: false, reason: this.unavailableReason() };
  }

  /** Connects now, dropping the current connection and any scheduled attempt; resolves once the attempt is over. */
  reconnect(): Promise<void> {
    if (this.state === 'closed') return Promise.resolve();
    this.failures = 0;
    return this.connect();
  }

  /** Stops the server for good: its process ends, no attempt follows. */
  async close(): Promise<void> {
    this.generation++;
    this.state = 'closed';
    this.clearRetry();
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => {});
  }

  connect(): Promise<void> {
    const generation = ++this.generation;
    this.clearRetry();
    const previous = this.client;
    this.client = null;
    this.state = 'connecting';
    this.deps.changed();
    const attempt = (async () => {
      await previous?.close().catch(() => {});
      if (generation === this.generation) await this.open(generation);
    })();
    return attempt;
  }

  private async open(generation: number): Promise<void> {
    const { config } = this.deps;
    const stdio =
      config.transport === 'stdio' ? new StdioProcessTransport(config, (line) => this.heardStderr(line)) : null;
    const transport =
      stdio ??
      new StreamableHTTPClientTransport(new URL((config as { url: string }).url), {
        requestInit: { headers: (config as { headers: Record<string, string> }).headers },
        // No answer held past the bound a stdio line has: see bounded-fetch.ts.
        fetch: createBoundedFetch(),
      });
    const client = new Client(
      { name: 'toolscope', version: '0.1.0' },
      {
        capabilities: {},
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 100, onChanged: () => void this.refreshTools(generation) },
        },
      },
    );
    client.onclose = () => this.lost(generation, stdio);
    // Transport errors (a malformed line, a dropped SSE stream) are not fatal by themselves; a closed connection is.
    client.onerror = () => {};
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      if (generation !== this.generation) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      this.protocolVersion =
        stdio?.protocolVersion ?? (transport as StreamableHTTPClientTransport).protocolVersion ?? null;
      const info = client.getServerVersion();
      this.serverInfo = info ? { name: info.name, version: info.version } : null;
      const skipped = this.install(await listAllTools(client));
      if (generation !== this.generation) return;
      this.state = 'connected';
      this.connectedAt = Date.now();
      this.error = skipped;
      this.failures = 0;
      const version = this.serverInfo ? ` (${this.serverInfo.name} ${this.serverInfo.version})` : '';
      console.log(`[toolscope] MCP server "${this.name}" connected${version}: ${this.toolNames.length} tools`);
      this.deps.changed();
    } catch (error) {
      if (generation !== this.generation) return;
      await client.close().catch(() => {});
      this.client = null;
      this.state = 'failed';
      this.error = boundText(this.scrub(this.failureOf(error, stdio)));
      this.scheduleRetry();
      this.deps.changed();
    }
  }

  /** The connection closed: the process exited or the session ended. */
  private lost(generation: number, stdio: StdioProcessTransport | null): void {
    // During `connect` the failure is the attempt's to report.
    if (generation !== this.generation || this.state !== 'connected') return;
    this.client = null;
    this.state = 'disconnected';
    this.error = stdio ? exitClause(stdio) : 'the connection closed';
    this.scheduleRetry();
    this.deps.changed();
  }

  private scheduleRetry(): void {
    this.clearRetry();
    this.failures++;
    const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (this.failures - 1));
    const delay = Math.round(base * (0.8 + 0.2 * this.random()));
    this.nextRetryAt = Date.now() + delay;
    // Said once per outage (the first failure), not at every attempt of a server that stays down.
    if (this.failures === 1) {
      console.warn(
        `[toolscope] MCP server "${this.name}" is not connected: ${this.error}; trying again with backoff (up to every ${MAX_RETRY_MS / 1000} s)`,
      );
    }
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.nextRetryAt = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref?.();
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.nextRetryAt = null;
  }

  /**
   * Registers the server's tools; returns a note on the ones skipped, or null. A tool listed
   * before with other hints is relabelled: its new side effect applies (a tighter one always; a
   * looser one only with `trustAnnotations`, and only then can annotations loosen anything).
   */
  private install(listed: McpTool[]): string | null {
    const tools: AnyTool[] = [];
    const skipped: string[] = [];
    const labels = new Map<string, { label: ToolLabel; sideEffect: SideEffect }>();
    const schemas = new Map<string, unknown>();
    const relabels: ToolRelabel[] = [];
    const now = Date.now();
    for (const tool of listed) {
      try {
        const name = upstreamToolName(this.name, tool.name);
        const previous = name ? this.labels.get(name) : undefined;
        const label = labelOf(tool);
        const changes = previous ? labelChanges(previous.label, label) : [];
        let sideEffect = sideEffectOfMcpTool(tool, this.tools[tool.name], this.trustAnnotations);
        if (previous && !this.trustAnnotations && REACH[sideEffect] < REACH[previous.sideEffect]) {
          sideEffect = previous.sideEffect;
        }
        const created = createUpstreamTool(this, tool, sideEffect);
        tools.push(created);
        labels.set(created.name, { label, sideEffect });
        schemas.set(created.name, tool.inputSchema);
        if (previous && changes.length > 0) {
          relabels.push({
            tool: created.name,
            at: now,
            before: previous.label,
            after: label,
            changes,
            sideEffectBefore: previous.sideEffect,
            sideEffectAfter: sideEffect,
          });
        }
      } catch (error) {
        skipped.push(`${tool.name} (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    this.deps.setTools(tools);
    this.schemas = schemas;
    for (const [name, labelled] of labels) {
      this.labels.delete(name);
      this.labels.set(name, labelled);
    }
    for (const name of this.labels.keys()) {
      if (this.labels.size <= MAX_LABELS) break;
      this.labels.delete(name);
    }
    for (const relabel of relabels) this.relabelled(relabel);
    this.toolNames = tools.map((tool) => tool.name);
    if (skipped.length === 0) return null;
    const note = boundText(`tools not registered: ${skipped.join('; ')}`);
    console.warn(`[toolscope] MCP server "${this.name}": ${note}`);
    return note;
  }

  private relabelled(relabel: ToolRelabel): void {
    this.relabels.delete(relabel.tool);
    this.relabels.set(relabel.tool, relabel);
    if (this.relabels.size > MAX_RELABELS) this.relabels.delete(this.relabels.keys().next().value as string);
    const effect =
      relabel.sideEffectBefore === relabel.sideEffectAfter
        ? `side effect stays ${relabel.sideEffectAfter}`
        : `side effect ${relabel.sideEffectBefore} → ${relabel.sideEffectAfter}`;
    console.warn(
      `[toolscope] MCP server "${this.name}" relabelled ${relabel.tool}: ${relabel.changes.join(', ')} (${effect})`,
    );
    try {
      this.deps.relabelled?.(relabel);
    } catch (error) {
      console.error(`[toolscope] MCP server "${this.name}": could not record the relabel of ${relabel.tool}:`, error);
    }
  }

  private async refreshTools(generation: number): Promise<void> {
    const client = this.client;
    if (!client || generation !== this.generation) return;
    try {
      const listed = await listAllTools(client);
      if (generation !== this.generation) return;
      this.error = this.install(listed);
      this.deps.changed();
    } catch (error) {
      console.warn(`[toolscope] MCP server "${this.name}": could not list its tools again:`, error);
    }
  }

  private heardStderr(raw: string): void {
    let line = this.scrub(raw);
    // The line outlives the calls (the server's stderr tail is shown with it): a server that logs
    // what it was called with must not keep a call's secrets there.
    for (const output of this.calls) line = output.scrub?.(line) ?? line;
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
    for (const output of this.calls) output.write('stderr', `${line}\n`);
  }

  /** Runs `tool` on the server for one attempt. */
  async call(tool: string, input: unknown, ctx: ToolContext): Promise<unknown> {
    const client = this.client;
    if (!client || this.state !== 'connected') {
      throw ToolError.temporary('UPSTREAM_UNAVAILABLE', this.unavailableReason());
    }
    const output = ctx.output;
    this.calls.add(output);
    try {
      const result = await client.callTool(
        { name: tool, arguments: (input ?? {}) as Record<string, unknown> },
        undefined,
        {
          signal: ctx.signal,
          // The attempt's own deadline stops the call first; this only keeps the SDK's 60 s default away.
          timeout: this.timeoutMs + 5_000,
          onprogress: (progress) => output.write('stdout', progressLine(progress)),
        },
      );
      if (this.deps.config.transport === 'stdio') await new Promise((resolve) => setTimeout(resolve, STDERR_GRACE_MS));
      return outputOfCallResult(result as Parameters<typeof outputOfCallResult>[0], tool);
    } catch (error) {
      if (error instanceof Error && (error as { code?: unknown }).code === 'UPSTREAM_TOOL_ERROR') throw error;
      throw this.callError(error, client);
    } finally {
      this.calls.delete(output);
    }
  }

  /**
   * What a call that threw becomes. A JSON-RPC error from the server (negative code) is the
   * server refusing the call; anything else on an HTTP server (fetch failed, the session gone)
   * means the connection is lost: the server is marked so and reconnects, and the call may be retried.
   */
  private callError(error: unknown, client: Client): ToolError {
    const code = (error as { code?: unknown }).code;
    const rpc = typeof code === 'number' && code < 0;
    const message = error instanceof Error ? error.message : String(error);
    if (this.deps.config.transport === 'http' && !rpc && this.client === client && this.state === 'connected') {
      this.client = null;
      this.state = 'disconnected';
      this.error = boundText(this.scrub(`the connection failed: ${causeOf(error) ?? message}`));
      void client.close().catch(() => {});
      this.scheduleRetry();
      this.deps.changed();
    }
    if (code === OVERSIZED_MESSAGE_CODE) {
      return new ToolError({
        code: 'OUTPUT_LIMIT',
        message: `The MCP server "${this.name}" answered too much: ${message.replace(/^MCP error -?\d+: /, '')}.`,
        details: { limit_bytes: MAX_STDIO_MESSAGE_BYTES },
      });
    }
    // -32000: the SDK's "connection closed" (a stdio server that exited).
    if (code === -32000 || !rpc || this.state !== 'connected') {
      return ToolError.temporary(
        'UPSTREAM_UNAVAILABLE',
        `The MCP server "${this.name}" was lost during the call: ${this.state === 'connected' ? message : (this.error ?? message)}.`,
      );
    }
    return new ToolError({
      code: 'UPSTREAM_ERROR',
      kind: code === -32602 ? 'parameter' : 'business',
      message: `The MCP server "${this.name}" refused the call: ${message}`,
      details: { mcp_code: code },
    });
  }

  private unavailableReason(): string {
    const why =
      this.state === 'closed'
        ? 'Toolscope is stopping'
        : this.state === 'connecting' && !this.error
          ? 'it is still connecting'
          : (this.error ?? 'it is reconnecting');
    return `The MCP server "${this.name}" is not connected: ${why}. Try again once it is back.`;
  }

  private failureOf(error: unknown, stdio: StdioProcessTransport | null): string {
    const message = error instanceof Error ? error.message : String(error);
    const errno = (error as { code?: unknown }).code;
    // A spawn error (ENOENT, EACCES): the program could not be run at all.
    if (stdio && typeof errno === 'string' && errno.startsWith('E')) {
      const command = (this.deps.config as { command: string }).command;
      return `it could not be started (${command}: ${errno === 'ENOENT' ? 'no such program' : message})`;
    }
    if (stdio?.exit) return exitClause(stdio);
    if ((error as { code?: unknown }).code === -32001)
      return `it did not answer the initialization within ${CONNECT_TIMEOUT_MS / 1000} s`;
    return `the connection failed: ${causeOf(error) ?? message}`;
  }
}
