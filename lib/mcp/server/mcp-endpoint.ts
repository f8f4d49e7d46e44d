import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { readBoundedBody } from '../../agent-path/read-body';
import { sendError } from '../../agent-path/respond';
import { guardJsonBody } from '../../api/request-guard';
import type { Config } from '../../config';
import type { Clock } from '../../executor/clock';
import type { Executor } from '../../executor/executor';
import { boundRpcErrors, hasOversizedInitialize, MAX_INITIALIZE_VALUES } from './bound-rpc';
import { createSessionServer } from './session-server';

export interface McpEndpointOptions {
  /** Between progress notifications while a call waits for approval. Default 10 s. */
  keepAliveMs?: number;
  /** A session with no request open (no stream, no call) for this long is ended. Default 30 min. */
  idleSessionMs?: number;
  /** Sessions kept at once; a new one then ends the longest idle. Default 200. */
  maxSessions?: number;
  clock?: Clock;
}

export interface McpEndpoint {
  /** Serves `/mcp` (after the agent path's guard): POST messages, GET the server's stream, DELETE a session. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Ids of the sessions open now. */
  sessionIds(): string[];
  /** Ends every session (their calls are cancelled) and stops following the registry. */
  close(): Promise<void>;
}

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** Requests of this session still open (a call, the GET stream). */
  open: number;
  lastSeen: number;
  ended: boolean;
}

const SESSION_HEADER = 'mcp-session-id';
const ALLOW = 'GET, POST, DELETE, OPTIONS';

/**
 * Toolscope as an MCP server: Streamable HTTP at `/mcp`, stateful, one SDK transport and
 * `Server` per session (`createSessionServer`). The agent path's guard (Host, Origin on writes,
 * token) has run before `handle`.
 * 1. Origin is checked on every method here, GET's stream too (MCP's guidance against DNS rebinding).
 * 2. POST: the body is read with the API's limits and parsed here; an `initialize` without a
 *    session id opens a session (id `mcp-<uuid>`, the Toolscope session of its calls); any other
 *    message names its session, and an unknown one is 404 (the client then starts anew).
 * 3. GET and DELETE go to their session's transport: the server's stream, the session's end.
 * 4. A change of the registry sends `notifications/tools/list_changed` to every session.
 * 5. Sessions idle (nothing open) for `idleSessionMs` are ended, and at most `maxSessions` kept.
 */
export function createMcpEndpoint(
  ts: { executor: Pick<Executor, 'execute' | 'inFlight' | 'registry'>; config: Pick<Config, 'limits'> },
  options: McpEndpointOptions = {},
): McpEndpoint {
  const keepAliveMs = options.keepAliveMs ?? 10_000;
  const idleSessionMs = options.idleSessionMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 200;
  const now = () => options.clock?.epochMs() ?? Date.now();
  const sessions = new Map<string, Session>();

  const end = (session: Session) => {
    session.ended = true;
    sessions.delete(session.id);
    return session.transport.close().catch(() => {});
  };

  const open = (): Session => {
    const session = { id: '', open: 0, lastSeen: now(), ended: false } as Session;
    session.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => `mcp-${randomUUID()}`,
      onsessioninitialized: (id) => {
        session.id = id;
        sessions.set(id, session);
        startSweep();
      },
      // A DELETE: the session's calls are cancelled as the session's end.
      onsessionclosed: () => {
        session.ended = true;
      },
    });
    boundRpcErrors(session.transport);
    session.transport.onclose = () => {
      session.ended = true;
      if (sessions.get(session.id) === session) sessions.delete(session.id);
    };
    session.server = createSessionServer({
      executor: ts.executor,
      ended: () => session.ended,
      keepAliveMs,
      clock: options.clock,
    });
    return session;
  };

  /** Room for one more session: the longest idle one goes; none idle means no room. */
  const makeRoom = (): boolean => {
    if (sessions.size < maxSessions) return true;
    let oldest: Session | undefined;
    for (const session of sessions.values()) {
      if (session.open === 0 && (!oldest || session.lastSeen < oldest.lastSeen)) oldest = session;
    }
    if (!oldest) return false;
    void end(oldest);
    return true;
  };

  // Runs only while there are sessions: an agent path that never serves MCP keeps no timer.
  let sweep: ReturnType<typeof setInterval> | null = null;
  const sweepIdle = () => {
    const cutoff = now() - idleSessionMs;
    for (const session of [...sessions.values()]) {
      if (session.open === 0 && session.lastSeen < cutoff) void end(session);
    }
    if (sessions.size === 0 && sweep) {
      clearInterval(sweep);
      sweep = null;
    }
  };
  const startSweep = () => {
    if (sweep) return;
    sweep = setInterval(sweepIdle, Math.min(idleSessionMs, 60_000));
    sweep.unref();
  };

  const unsubscribe = ts.executor.registry.onChange(() => {
    for (const session of sessions.values()) session.server.sendToolListChanged().catch(() => {});
  });

  /** Counts the request as the session's activity until its response closes. */
  const serve = async (session: Session, req: IncomingMessage, res: ServerResponse, body?: unknown) => {
    session.open++;
    session.lastSeen = now();
    res.once('close', () => {
      session.open--;
      session.lastSeen = now();
    });
    await session.transport.handleRequest(req, res, body);
  };

  const post = async (req: IncomingMessage, res: ServerResponse) => {
    const json = guardJsonBody(req.headers['content-type']);
    if (!json.ok) return sendError(res, json.status, json.code, json.message);
    const { maxBodyBytes, bodyTimeoutMs } = ts.config.limits;
    const text = (await readBoundedBody(req, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs })).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return sendRpcError(res, 400, -32700, 'Parse error: the body is not JSON.');
    }
    if (hasOversizedInitialize(body)) {
      const message = `Invalid params: an initialize request holds more than ${MAX_INITIALIZE_VALUES} values.`;
      return sendRpcError(res, 400, -32602, message);
    }
    const id = sessionIdOf(req);
    if (id !== null) {
      const session = sessions.get(id);
      if (!session) return sendRpcError(res, 404, -32001, `Session not found: ${id.slice(0, 100)}. Initialize anew.`);
      return serve(session, req, res, body);
    }
    const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!initializing) {
      return sendRpcError(res, 400, -32000, 'Bad Request: send the Mcp-Session-Id header, or initialize first.');
    }
    if (!makeRoom()) {
      return sendRpcError(res, 503, -32000, `Toolscope serves ${maxSessions} MCP sessions at most and all are busy.`);
    }
    const session = open();
    await session.server.connect(session.transport);
    return serve(session, req, res, body);
  };

  return {
    async handle(req, res) {
      const method = req.method ?? 'GET';
      if (!sameOrigin(req)) {
        return sendError(res, 403, 'CROSS_ORIGIN', `Requests from ${req.headers.origin} may not use /mcp.`);
      }
      if (method === 'POST') return post(req, res);
      if (method === 'GET' || method === 'DELETE') {
        const id = sessionIdOf(req);
        if (id === null) return sendRpcError(res, 400, -32000, 'Bad Request: send the Mcp-Session-Id header.');
        const session = sessions.get(id);
        if (!session) return sendRpcError(res, 404, -32001, `Session not found: ${id.slice(0, 100)}.`);
        return serve(session, req, res);
      }
      if (method === 'OPTIONS') {
        res.writeHead(204, { allow: ALLOW });
        res.end();
        return;
      }
      return sendError(res, 405, 'METHOD_NOT_ALLOWED', `/mcp answers ${ALLOW}.`, { allow: ALLOW });
    },
    sessionIds: () => [...sessions.keys()],
    async close() {
      if (sweep) clearInterval(sweep);
      sweep = null;
      unsubscribe();
      await Promise.all([...sessions.values()].map(end));
    },
  };
}

function sessionIdOf(req: IncomingMessage): string | null {
  const value = req.headers[SESSION_HEADER];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** No Origin (a program, not a page), or the page's origin is this very host. */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host.toLowerCase() === (req.headers.host ?? '').toLowerCase();
  } catch {
    return false;
  }
}

/** A JSON-RPC error answered before any session handles the message (as the SDK's transport words them). */
function sendRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}
