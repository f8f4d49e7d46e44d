import type {
  AnthropicToolCallsRequest,
  AnthropicToolCallsResponse,
  ApprovalDecision,
  DecidedApproval,
  OpenAIToolCallsRequest,
  OpenAIToolCallsResponse,
  PendingApproval,
  SessionDetail,
  SessionPage,
  SessionQuery,
  ToolFormat,
  ToolscopeEvent,
  ToolsOf,
  Trace,
  TracePage,
  TraceQuery,
} from './api-types';
import { type EventFilter, type SubscribeOptions, subscribeEvents } from './subscribe-events';
import { createTransport, type TransportOptions } from './transport';
import { type WaitForApprovalOptions, waitForApproval } from './wait-for-approval';

export type ToolscopeClientOptions = TransportOptions;

/** What every request method takes beside its own arguments. */
export interface RequestOptions {
  signal?: AbortSignal;
}

export interface ToolscopeClient {
  /** Where the client talks to, without a trailing slash: links to pages are `${baseUrl}/sessions/…`. */
  readonly baseUrl: string;
  /**
   * `POST /api/v1/tool-calls`: runs a batch in OpenAI's form (`tool_calls` in; `results` and the
   * `role: "tool"` `messages` out) or Anthropic's (`tool_use` in; `results` and `tool_results` out),
   * in input order. Bad tool arguments are per-call results, not errors; a malformed body throws.
   */
  runToolCalls(request: OpenAIToolCallsRequest, options?: RequestOptions): Promise<OpenAIToolCallsResponse>;
  runToolCalls(request: AnthropicToolCallsRequest, options?: RequestOptions): Promise<AnthropicToolCallsResponse>;
  /** `GET /api/v1/tools`: the tools, in Toolscope's own form or ready for an OpenAI or Anthropic request. */
  listTools<F extends ToolFormat = 'toolscope'>(
    query?: { format?: F },
    options?: RequestOptions,
  ): Promise<ToolsOf<F>[]>;
  /** `GET /api/v1/traces/:id`: the whole redacted trace (a running call's live snapshot). */
  getTrace(id: string, options?: RequestOptions): Promise<Trace>;
  /** `GET /api/v1/traces`: newest first; follow `next_cursor` for more. */
  listTraces(query?: TraceQuery, options?: RequestOptions): Promise<TracePage>;
  /** `GET /api/v1/sessions`: newest activity first; follow `next_cursor` for more. */
  listSessions(query?: SessionQuery, options?: RequestOptions): Promise<SessionPage>;
  /** `GET /api/v1/sessions/:id`: the session with its calls in order, findings and totals. */
  getSession(id: string, options?: RequestOptions): Promise<SessionDetail>;
  /** `GET /api/v1/approvals`: the calls waiting for a person, oldest first. */
  listApprovals(options?: RequestOptions): Promise<PendingApproval[]>;
  /** `POST /api/v1/approvals/:traceId`: approve (maybe with edited arguments) or deny. */
  decideApproval(traceId: string, decision: ApprovalDecision, options?: RequestOptions): Promise<DecidedApproval>;
  /** Resolves with the call's trace once it is decided / finished; see `WaitForApprovalOptions`. */
  waitForApproval(traceId: string, options?: WaitForApprovalOptions): Promise<Trace>;
  /**
   * `GET /api/v1/events`, followed until the returned function is called; reconnects with
   * `Last-Event-ID` and backoff, so that a dropped connection loses nothing the server can replay.
   */
  subscribe(filter: EventFilter, onEvent: (event: ToolscopeEvent) => void, options?: SubscribeOptions): () => void;
}

const segment = (value: string) => encodeURIComponent(value);

function queryOf(values: object | undefined): URLSearchParams {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(values ?? {})) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  }
  return query;
}

/**
 * A typed client of Toolscope's HTTP API, on `fetch` alone (Node ≥ 20, Deno, Bun, browsers).
 * Failures throw a `ToolscopeError` with the API's `code` and the HTTP `status`.
 * @example
 * const toolscope = createToolscopeClient({ baseUrl: 'http://127.0.0.1:3000' });
 * const { messages } = await toolscope.runToolCalls({ session_id: 'run-1', tool_calls: reply.tool_calls });
 */
export function createToolscopeClient(options: ToolscopeClientOptions): ToolscopeClient {
  const transport = createTransport(options);
  const getTrace = (id: string, request: RequestOptions = {}) =>
    transport.json<Trace>('GET', `/api/v1/traces/${segment(id)}`, request);
  const subscribe = (
    filter: EventFilter,
    onEvent: (event: ToolscopeEvent) => void,
    subscribeOptions?: SubscribeOptions,
  ) => subscribeEvents(transport, filter, onEvent, subscribeOptions);

  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    runToolCalls: ((request: OpenAIToolCallsRequest | AnthropicToolCallsRequest, { signal }: RequestOptions = {}) =>
      transport.json('POST', '/api/v1/tool-calls', { body: request, signal })) as ToolscopeClient['runToolCalls'],
    async listTools(query, request = {}) {
      const body = await transport.json<{ tools: never[] }>('GET', '/api/v1/tools', {
        query: queryOf(query),
        ...request,
      });
      return body.tools;
    },
    getTrace,
    listTraces: (query, request = {}) =>
      transport.json<TracePage>('GET', '/api/v1/traces', { query: queryOf(query), ...request }),
    listSessions: (query, request = {}) =>
      transport.json<SessionPage>('GET', '/api/v1/sessions', { query: queryOf(query), ...request }),
    getSession: (id, request = {}) => transport.json<SessionDetail>('GET', `/api/v1/sessions/${segment(id)}`, request),
    async listApprovals(request = {}) {
      const body = await transport.json<{ approvals: PendingApproval[] }>('GET', '/api/v1/approvals', request);
      return body.approvals;
    },
    decideApproval: (traceId, decision, { signal }: RequestOptions = {}) =>
      transport.json<DecidedApproval>('POST', `/api/v1/approvals/${segment(traceId)}`, { body: decision, signal }),
    waitForApproval: (traceId, waitOptions) => waitForApproval({ getTrace, subscribe }, traceId, waitOptions),
    subscribe,
  };
}
