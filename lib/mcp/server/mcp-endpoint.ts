import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { ApiError, errorEnvelope } from '../../errors';
import type { Clock } from '../../executor/clock';
import type { Executor } from '../../executor/executor';
import type { CallPrincipal } from '../../executor/types';
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
  /**
   * Serves `/mcp` (after the HTTP layer's guard, authentication and body limit): POST messages
   * (`body`: the request's body, read within its bound; null when it had none), GET the
   * server's stream, DELETE a session.
   */
  handle(request: Request, body: Buffer | null, principal?: CallPrincipal): Promise<Response>;
  /** Ids of the sessions open now. */
  sessionIds(): string[];
  /** Ends every session (their calls are cancelled) and stops following the registry. */
  close(): Promise<void>;
}

interface Session {
  id: string;
  /** Who opened it: the only principal that may use it or end it. */
  principal: CallPrincipal | null;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** Requests of this session still open (a call, the GET stream). */
  open: number;
  lastSeen: number;
  ended: boolean;
}

const SESSION_HEADER = 'mcp-session-id';

/**
 * Toolscope as an MCP server: Streamable HTTP at `/mcp`, stateful, one SDK transport and
 * `Server` per session (`createSessionServer`). The HTTP layer's guard (Host, Origin on writes),
 * authentication and body limit have run before `handle`.
 * 1. Origin is checked on every method here, GET's stream too (MCP's guidance against DNS rebinding).
 * 2. POST: the body, read by the HTTP layer within the API's limits, is parsed here; an `initialize` without a
 *    session id opens a session (id `mcp-<uuid>`, the Toolscope session of its calls); any other
 *    message names its session, and an unknown one is 404 (the client then starts anew).
 * 3. GET and DELETE go to their session's transport: the server's stream, the session's end.
 * 4. A change of the registry sends `notifications/tools/list_changed` to every session.
 * 5. Sessions idle (nothing open) for `idleSessionMs` are ended, and at most `maxSessions` kept.
 */
export function createMcpEndpoint(
  ts: {
    executor: Pick<Executor, 'execute' | 'inFlight' | 'registry'>;
    mayCall?: (principalId: string, tool: string) => boolean;
  },
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

  const open = (principal: CallPrincipal | null): Session => {
    const session = { id: '', principal, open: 0, lastSeen: now(), ended: false } as Session;
    session.transport = new WebStandardStreamableHTTPServerTransport({
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
      principal,
      mayCall: ts.mayCall,
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

  /** Counts the request as the session's activity until its response (a stream, maybe) ends. */
  const serve = async (session: Session, request: Request, body?: unknown): Promise<Response> => {
    session.open++;
    session.lastSeen = now();
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      session.open--;
      session.lastSeen = now();
    };
    try {
      const response = await session.transport.handleRequest(
        request,
        body === undefined ? undefined : { parsedBody: body },
      );
      if (!response.body) {
        done();
        return response;
      }
      return new Response(whenEnded(response.body, done), response);
    } catch (error) {
      done();
      throw error;
    }
  };

  /** The session a request names, if it is open and was opened by the same principal (another's is not found). */
  const sessionOf = (id: string, principal: CallPrincipal | null): Session | undefined => {
    const session = sessions.get(id);
    if (!session || (session.principal?.id ?? null) !== (principal?.id ?? null)) return undefined;
    return session;
  };

  const post = async (request: Request, raw: Buffer | null, principal: CallPrincipal | null): Promise<Response> => {
    if (raw === null) return rpcError(400, -32700, 'Parse error: the body is empty.');
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return rpcError(400, -32700, 'Parse error: the body is not JSON.');
    }
    if (hasOversizedInitialize(body)) {
      const message = `Invalid params: an initialize request holds more than ${MAX_INITIALIZE_VALUES} values.`;
      return rpcError(400, -32602, message);
    }
    const id = sessionIdOf(request);
    if (id !== null) {
      const session = sessionOf(id, principal);
      if (!session) return rpcError(404, -32001, `Session not found: ${id.slice(0, 100)}. Initialize anew.`);
      return serve(session, request, body);
    }
    const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
    if (!initializing) {
      return rpcError(400, -32000, 'Bad Request: send the Mcp-Session-Id header, or initialize first.');
    }
    if (!makeRoom()) {
      return rpcError(503, -32000, `Toolscope serves ${maxSessions} MCP sessions at most and all are busy.`);
    }
    const session = open(principal);
    await session.server.connect(session.transport);
    return serve(session, request, body);
  };

  return {
    async handle(request, body, principal) {
      const { method } = request;
      if (!sameOrigin(request)) {
        const origin = request.headers.get('origin');
        return Response.json(errorEnvelope('CROSS_ORIGIN', `Requests from ${origin} may not use /mcp.`), {
          status: 403,
        });
      }
      if (method === 'POST') return post(request, body, principal ?? null);
      if (method === 'GET' || method === 'DELETE') {
        const id = sessionIdOf(request);
        if (id === null) return rpcError(400, -32000, 'Bad Request: send the Mcp-Session-Id header.');
        const session = sessionOf(id, principal ?? null);
        if (!session) return rpcError(404, -32001, `Session not found: ${id.slice(0, 100)}.`);
        return serve(session, request);
      }
      throw new ApiError('METHOD_NOT_ALLOWED', '/mcp answers GET, POST, DELETE, OPTIONS.', undefined, {
        allow: 'GET, POST, DELETE, OPTIONS',
      });
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

function sessionIdOf(request: Request): string | null {
  const value = request.headers.get(SESSION_HEADER);
  return value ? value : null;
}

/** No Origin (a program, not a page), or the page's origin is this very host. */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  try {
    return new URL(origin).host.toLowerCase() === (request.headers.get('host') ?? '').toLowerCase();
  } catch {
    return false;
  }
}

/** A JSON-RPC error answered before any session handles the message (as the SDK's transport words them). */
function rpcError(status: number, code: number, message: string): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code, message }, id: null },
    {
      status,
      headers: { 'cache-control': 'no-store' },
    },
  );
}

/** The same body, calling `done` once it has ended, errored or been cancelled by the client. */
function whenEnded(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          done();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
}
