'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RotateCcw } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { useMay, useViewer } from '@/components/access/viewer';
import { Timestamp } from '@/components/timestamp';
import { CircuitLabel } from '@/components/tools/policy-badge';
import { useLiveStats } from '@/components/tools/use-live-stats';
import type { CircuitJson } from '@/lib/api/tool-json';
import type { CircuitState } from '@/lib/executor/circuit-breaker';
import { formatTimer, shortId } from '@/lib/ui/format';

/** What the panel shows of `GET /api/v1/tools/:name`: the worst state and each breaker not closed. */
export interface CircuitsData {
  state: CircuitState;
  circuits: CircuitJson[];
}

const QUERY_KEY = 'tool-circuits';

/** The clock, ticking once a second; `renderedAt` until hydrated, so server and browser agree. */
function useNow(renderedAt: number): number {
  const [now, setNow] = useState(renderedAt);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** `POST /api/v1/tools/:name/circuit/reset`: the keys closed, or the API's message as the error. */
async function resetCircuits(tool: string, key: string | null | undefined): Promise<(string | null)[]> {
  let response: Response;
  try {
    response = await fetch(`/api/v1/tools/${encodeURIComponent(tool)}/circuit/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(key === undefined ? {} : { key }),
    });
  } catch {
    throw new Error('Not reset: Toolscope is not reachable.');
  }
  const body = (await response.json().catch(() => null)) as {
    reset?: (string | null)[];
    error?: { message?: string };
  } | null;
  if (!response.ok) throw new Error(`Not reset: ${body?.error?.message ?? `HTTP ${response.status}`}`);
  return body?.reset ?? [];
}

/**
 * The tool's circuit breaker, live: its state, and for each breaker that is not closed (one per
 * host for `http_request`) why it opened (the failures, linked to their traces), since when, a
 * countdown to the next trial call, and a Reset button for reviewers and admins.
 */
export function CircuitPanel({
  tool,
  initial,
  renderedAt,
  thresholds,
}: {
  tool: string;
  initial: CircuitsData;
  renderedAt: number;
  /** The breaker's settings in words: `opens after 5 failures in a row · 30 s cooldown · per host`. */
  thresholds: string;
}) {
  const data = useLiveStats<CircuitsData>({
    url: `/api/v1/tools/${encodeURIComponent(tool)}`,
    queryKey: [QUERY_KEY, tool],
    initialData: initial,
    renderedAt,
    tool,
    parse: (body) => {
      const json = body as { circuit_state: CircuitState; circuits: CircuitJson[] };
      return { state: json.circuit_state, circuits: json.circuits };
    },
  });
  const now = useNow(renderedAt);
  const client = useQueryClient();
  const mayReset = useMay('circuits.reset');
  const viewer = useViewer();
  const [done, setDone] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: (key: string | null | undefined) => resetCircuits(tool, key),
    onSuccess: (keys) => {
      setDone(
        keys.length === 0
          ? 'Nothing to reset: it had closed already.'
          : `Closed ${keys.map((k) => k ?? 'the breaker').join(', ')}: the next call runs.`,
      );
      // Closed at once; the refetch confirms it.
      client.setQueriesData<CircuitsData>({ queryKey: [QUERY_KEY, tool] }, (old) => {
        if (!old) return old;
        const circuits = old.circuits.filter((c) => !keys.includes(c.key));
        return { circuits, state: worstOf(circuits, now) };
      });
      void client.invalidateQueries({ queryKey: [QUERY_KEY, tool] });
    },
  });
  const circuits = data.circuits;
  const state = worstOf(circuits, now);
  const cannotReset = mayReset
    ? null
    : `Your role (${viewer?.role ?? 'none'}) cannot reset breakers: a reviewer or an admin can.`;

  return (
    <section
      aria-labelledby="circuit-heading"
      className="flex flex-col gap-1.5"
      data-testid="circuit-panel"
      data-state={state}
    >
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <h2 id="circuit-heading" className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
          Circuit breaker
        </h2>
        <CircuitLabel state={state} enabled />
        <span className="text-xs text-fg-muted">{thresholds}</span>
        {circuits.length > 1 && (
          <ResetButton
            label="Reset all"
            pending={reset.isPending}
            disabledReason={cannotReset}
            onClick={() => reset.mutate(undefined)}
            testId="circuit-reset-all"
          />
        )}
      </div>
      {circuits.length === 0 ? (
        <p className="text-xs text-fg-muted" data-testid="circuit-closed">
          Closed: calls run normally.
        </p>
      ) : (
        <ul className="flex flex-col gap-1.5">
          {circuits.map((circuit) => (
            <OpenCircuit
              key={circuit.key ?? '(tool)'}
              tool={tool}
              circuit={circuit}
              now={now}
              resetting={reset.isPending}
              cannotReset={cannotReset}
              onReset={() => reset.mutate(circuit.key)}
            />
          ))}
        </ul>
      )}
      {cannotReset && circuits.length > 0 && (
        <p className="text-xs text-fg-muted" data-testid="circuit-reset-reason">
          {cannotReset}
        </p>
      )}
      {reset.error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          {reset.error.message}
        </p>
      )}
      {done && !reset.error && (
        <p role="status" className="text-xs text-fg-muted" data-testid="circuit-reset-done">
          {done}
        </p>
      )}
    </section>
  );
}

/** The worst state of `circuits` now: an open one whose cooldown is over is half-open. */
function worstOf(circuits: CircuitJson[], now: number): CircuitState {
  if (circuits.length === 0) return 'closed';
  return circuits.some((c) => stateAt(c, now) === 'open') ? 'open' : 'half_open';
}

function stateAt(circuit: CircuitJson, now: number): 'open' | 'half_open' {
  return circuit.state === 'open' && Date.parse(circuit.retry_at) > now ? 'open' : 'half_open';
}

function OpenCircuit({
  tool,
  circuit,
  now,
  resetting,
  cannotReset,
  onReset,
}: {
  tool: string;
  circuit: CircuitJson;
  now: number;
  resetting: boolean;
  cannotReset: string | null;
  onReset: () => void;
}) {
  const state = stateAt(circuit, now);
  const left = Date.parse(circuit.retry_at) - now;
  const open = state === 'open';
  return (
    <li
      className={`flex flex-col gap-1 rounded border p-2 text-xs ${
        open
          ? 'border-red-200 bg-red-50 dark:border-red-900 dark:bg-red-950/40'
          : 'border-amber-200 bg-amber-50 dark:border-amber-900 dark:bg-amber-950/40'
      }`}
      data-testid="circuit"
      data-key={circuit.key ?? ''}
      data-state={state}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <CircuitLabel state={state} enabled />
        <span className="font-mono font-semibold" data-testid="circuit-key">
          {circuit.key ?? tool}
        </span>
        <span className="text-fg-muted">
          since <Timestamp ms={Date.parse(circuit.opened_at)} />
        </span>
        <span data-testid="circuit-countdown" data-retry-at={circuit.retry_at}>
          {open ? (
            <>
              next trial call in <span className="font-semibold tabular-nums">{formatTimer(left + 999)}</span>
            </>
          ) : (
            'cooldown over: the next call is a trial; it closes the breaker if it succeeds'
          )}
        </span>
        <ResetButton
          label="Reset"
          pending={resetting}
          disabledReason={cannotReset}
          onClick={onReset}
          testId="circuit-reset"
          className="ml-auto"
        />
      </div>
      <p className="text-fg-muted">
        {open
          ? 'Calls to it are refused with CIRCUIT_OPEN'
          : 'One trial call runs; others are refused until it succeeds'}
        {circuit.key !== null ? '; other hosts are called as usual' : ''}. Tripped by{' '}
        {circuit.failures.length === 1 ? 'this failure' : `these ${circuit.failures.length} failures in a row`}:{' '}
        <span className="inline-flex flex-wrap gap-1 align-baseline">
          {circuit.failures.map((id) => (
            <Link
              key={id}
              href={`/traces/${encodeURIComponent(id)}`}
              className="font-mono text-accent hover:underline"
              title={id}
              data-testid="circuit-failure"
            >
              {shortId(id)}
            </Link>
          ))}
        </span>
      </p>
    </li>
  );
}

function ResetButton({
  label,
  pending,
  disabledReason,
  onClick,
  testId,
  className = '',
}: {
  label: string;
  pending: boolean;
  disabledReason: string | null;
  onClick: () => void;
  testId: string;
  className?: string;
}) {
  return (
    <button
      type="button"
      onClick={onClick}
      disabled={pending || disabledReason !== null}
      title={disabledReason ?? 'Close the breaker now: the next call runs'}
      className={`inline-flex items-center gap-1 rounded border border-line bg-bg px-2 py-0.5 text-xs font-medium hover:bg-muted disabled:cursor-not-allowed disabled:opacity-50 ${className}`}
      data-testid={testId}
    >
      <RotateCcw size={12} aria-hidden />
      {pending ? 'Resetting…' : label}
    </button>
  );
}
