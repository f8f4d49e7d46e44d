import type { Toolscope } from './create-toolscope';

/** OpenTelemetry export as `GET /api/v1/health` reports it; kept up to date by `createToolscope`. */
export interface OtelStatus {
  /** Whether calls are exported (`OTEL_EXPORTER_OTLP_ENDPOINT` set, or a host's settings). */
  enabled: boolean;
  /** Where spans go, without credentials or query; null when off. */
  endpoint: string | null;
  /** The exporter's last failure (a collector down, its worker stopped); null when none was said. */
  lastError: { message: string; at: number } | null;
}

/** `GET /api/v1/health`'s body (snake_case, times as ISO strings). */
export interface HealthJson {
  /** `degraded` while the trace store is: it alone decides; `mcp`, `otel` and `vault` say their own state. */
  status: 'ok' | 'degraded';
  store: {
    status: 'ok' | 'degraded';
    queued: number;
    last_error: { message: string; code: string | null; at: string } | null;
    disk_free_bytes: number | null;
  };
  mcp: {
    name: string;
    transport: 'stdio' | 'http';
    state: string;
    error: string | null;
    next_retry_at: string | null;
  }[];
  otel: { enabled: boolean; endpoint: string | null; last_error: { message: string; at: string } | null };
  vault?: ReturnType<Toolscope['vaultHealth']>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * How Toolscope is doing, for `GET /api/v1/health` and the pages' banner: the trace store
 * (`TraceStore.health`), the upstream MCP servers' states, OpenTelemetry export, the vault key.
 * The overall `status` is the store's: while it is degraded, calls answered are held in memory
 * and new ones may be refused; an MCP server down or an exporter failing affects only its own.
 */
export function serviceHealth(
  ts: Pick<Toolscope, 'store' | 'upstream' | 'otel'> & Partial<Pick<Toolscope, 'vaultHealth'>>,
): HealthJson {
  const store = ts.store.health();
  const body: HealthJson = {
    status: store.status,
    store: {
      status: store.status,
      queued: store.queued,
      last_error: store.lastError && {
        message: store.lastError.message,
        code: store.lastError.code,
        at: new Date(store.lastError.at).toISOString(),
      },
      disk_free_bytes: store.diskFreeBytes,
    },
    mcp: ts.upstream.list().map((server) => ({
      name: server.name,
      transport: server.transport,
      state: server.state,
      error: server.error,
      next_retry_at: iso(server.nextRetryAt),
    })),
    otel: {
      enabled: ts.otel.enabled,
      endpoint: ts.otel.endpoint,
      last_error: ts.otel.lastError && {
        message: ts.otel.lastError.message,
        at: new Date(ts.otel.lastError.at).toISOString(),
      },
    },
  };
  if (ts.vaultHealth) body.vault = ts.vaultHealth();
  return body;
}
