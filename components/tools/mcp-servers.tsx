'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { CircleAlert, CircleCheck, CircleSlash, LoaderCircle, type LucideIcon, PlugZap, RotateCw } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import {
  isDown,
  MCP_SERVERS_KEY,
  type McpServerJson,
  type McpServerState,
  reconnectMcpServer,
  TOOLS_CATALOG_KEY,
} from '@/lib/ui/mcp-servers';
import { Timestamp } from '../timestamp';

const STATE_LOOK: Record<McpServerState, { label: string; Icon: LucideIcon; className: string; spin?: boolean }> = {
  connected: {
    label: 'connected',
    Icon: CircleCheck,
    className:
      'text-emerald-800 bg-emerald-50 border-emerald-200 dark:text-emerald-300 dark:bg-emerald-950/50 dark:border-emerald-900',
  },
  connecting: {
    label: 'connecting',
    Icon: LoaderCircle,
    className: 'text-blue-700 bg-blue-50 border-blue-200 dark:text-blue-300 dark:bg-blue-950/50 dark:border-blue-900',
    spin: true,
  },
  failed: {
    label: 'failed',
    Icon: CircleAlert,
    className: 'text-red-700 bg-red-50 border-red-200 dark:text-red-300 dark:bg-red-950/50 dark:border-red-900',
  },
  disconnected: {
    label: 'disconnected',
    Icon: PlugZap,
    className:
      'text-amber-800 bg-amber-50 border-amber-200 dark:text-amber-300 dark:bg-amber-950/50 dark:border-amber-900',
  },
  closed: {
    label: 'closed',
    Icon: CircleSlash,
    className: 'text-zinc-700 bg-zinc-100 border-zinc-300 dark:text-zinc-300 dark:bg-zinc-800/60 dark:border-zinc-700',
  },
};

/** A server's connection state: icon and word as well as colour. */
export function McpStateBadge({ state }: { state: McpServerState }) {
  const look = STATE_LOOK[state];
  return (
    <span
      className={`inline-flex items-center gap-1 whitespace-nowrap rounded border px-1.5 text-[11px] font-medium ${look.className}`}
      data-testid="mcp-state"
      data-state={state}
    >
      <look.Icon size={11} aria-hidden className={look.spin ? 'animate-spin' : undefined} />
      {look.label}
    </span>
  );
}

/** Seconds until `iso`, ticking once a second while shown. */
function RetryIn({ iso }: { iso: string }) {
  const at = Date.parse(iso);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.ceil((at - now) / 1000));
  return (
    <span className="tabular-nums" data-testid="mcp-next-retry" title={iso}>
      {seconds > 0 ? `in ${seconds} s` : 'now'}
    </span>
  );
}

function ServerCard({ server }: { server: McpServerJson }) {
  const client = useQueryClient();
  const reconnect = useMutation({
    mutationFn: () => reconnectMcpServer(server.name),
    onSuccess: (entry) => {
      client.setQueryData<McpServerJson[]>(MCP_SERVERS_KEY, (servers) =>
        servers?.map((s) => (s.name === entry.name ? entry : s)),
      );
    },
    onSettled: () => {
      void client.invalidateQueries({ queryKey: MCP_SERVERS_KEY });
      void client.invalidateQueries({ queryKey: TOOLS_CATALOG_KEY });
    },
  });
  const down = isDown(server.state);
  const version = server.server_info ? `${server.server_info.name} ${server.server_info.version}` : null;
  const headingId = `mcp-server-${server.name}`;

  return (
    <li
      className="flex min-w-0 flex-col gap-1.5 rounded border border-line p-2"
      aria-labelledby={headingId}
      data-testid="mcp-server"
      data-server={server.name}
      data-state={server.state}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <h3 id={headingId} className="font-mono text-[13px] font-semibold">
          {server.name}
        </h3>
        <McpStateBadge state={server.state} />
        <span className="text-xs text-fg-muted" data-testid="mcp-meta">
          {server.transport}
          {server.protocol_version && <> · MCP {server.protocol_version}</>}
          {version && <> · {version}</>}
        </span>
        <button
          type="button"
          onClick={() => reconnect.mutate()}
          disabled={reconnect.isPending}
          className="ml-auto inline-flex items-center gap-1 rounded border border-line px-2 py-0.5 text-xs hover:bg-muted disabled:opacity-50"
          data-testid="mcp-reconnect"
          aria-label={`Reconnect ${server.name}`}
        >
          <RotateCw size={12} aria-hidden className={reconnect.isPending ? 'animate-spin' : undefined} />
          {reconnect.isPending ? 'Reconnecting…' : 'Reconnect'}
        </button>
      </div>
      <dl className="flex flex-wrap gap-x-4 gap-y-0.5 text-xs">
        <div className="flex gap-1">
          <dt className="text-fg-muted">Tools</dt>
          <dd className="tabular-nums" data-testid="mcp-tool-count">
            {server.tools.length}
          </dd>
        </div>
        {server.connected_at && !down && (
          <div className="flex gap-1">
            <dt className="text-fg-muted">Connected</dt>
            <dd>
              <Timestamp ms={Date.parse(server.connected_at)} />
            </dd>
          </div>
        )}
        {server.next_retry_at && down && (
          <div className="flex gap-1">
            <dt className="text-fg-muted">Next retry</dt>
            <dd>
              <RetryIn iso={server.next_retry_at} />
            </dd>
          </div>
        )}
      </dl>
      {server.error && (
        <p
          // Connected, the error only says what was left out (tools it could not register): a notice, not a failure.
          className={`whitespace-pre-wrap break-words rounded border px-1.5 py-1 text-xs ${
            server.state === 'connected'
              ? 'border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-200'
              : 'border-red-200 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/40 dark:text-red-200'
          }`}
          data-testid="mcp-error"
          data-severity={server.state === 'connected' ? 'notice' : 'error'}
        >
          {server.error}
        </p>
      )}
      {reconnect.error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {reconnect.error.message}
        </p>
      )}
      {server.tools.length > 0 && (
        <ul className="flex flex-wrap gap-1" aria-label={`Tools of ${server.name}`}>
          {server.tools.map((name) => (
            <li key={name}>
              <Link
                href={`/tools/${encodeURIComponent(name)}`}
                className={`rounded border border-line px-1 font-mono text-[11px] hover:bg-muted ${down ? 'text-fg-muted line-through decoration-fg-muted/60' : 'text-accent'}`}
                title={down ? `${name}: unavailable while ${server.name} is ${server.state}` : name}
              >
                {name.slice(server.name.length + 2) || name}
              </Link>
            </li>
          ))}
        </ul>
      )}
      {server.stderr_tail.length > 0 && (
        <details open={down} data-testid="mcp-stderr">
          <summary className="cursor-pointer text-xs text-fg-muted">
            stderr, last {server.stderr_tail.length} line{server.stderr_tail.length === 1 ? '' : 's'}
          </summary>
          <pre className="mt-1 max-h-48 overflow-auto rounded border border-line bg-subtle p-1.5 font-mono text-[11px] leading-4">
            {server.stderr_tail.join('\n')}
          </pre>
        </details>
      )}
    </li>
  );
}

/**
 * The upstream MCP servers of the config: each one's connection state, transport, protocol and
 * server version, tools, last error, stderr tail and next retry, with a Reconnect button. Data
 * from `GET /api/v1/mcp/servers`, kept live by the tools page (see ToolsOverview).
 */
export function McpServers({ servers, error }: { servers: McpServerJson[] | undefined; error: Error | null }) {
  const connected = servers?.filter((server) => server.state === 'connected').length ?? 0;
  return (
    <section aria-labelledby="mcp-servers-heading" className="flex flex-col gap-1.5" data-testid="mcp-servers">
      <div className="flex flex-wrap items-baseline gap-x-3">
        <h2 id="mcp-servers-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
          MCP servers
        </h2>
        {servers && servers.length > 0 && (
          <p className="text-xs text-fg-muted" data-testid="mcp-summary">
            {connected} of {servers.length} connected
          </p>
        )}
        {error && servers && (
          <p role="status" className="text-xs text-amber-800 dark:text-amber-300">
            Not refreshed: {error.message}. Shown as last read.
          </p>
        )}
      </div>
      {error && !servers ? (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {error.message}
        </p>
      ) : !servers ? (
        <p className="text-xs text-fg-muted">Loading the MCP servers…</p>
      ) : servers.length === 0 ? (
        <p className="text-xs text-fg-muted" data-testid="mcp-none">
          No MCP servers configured. Servers listed under <code className="font-mono">"mcp": {'{ "servers": … }'}</code>{' '}
          in the config file contribute their tools here, as <code className="font-mono">server__tool</code>.
        </p>
      ) : (
        <ul className="grid gap-2 lg:grid-cols-2">
          {servers.map((server) => (
            <ServerCard key={server.name} server={server} />
          ))}
        </ul>
      )}
    </section>
  );
}
