import { type CircuitBreaker, type CircuitState, createCircuitBreaker } from './circuit-breaker';
import type { Clock } from './clock';
import { errorData } from './errors';
import type { AnyTool, CircuitBreakerPolicy, ToolErrorData } from './types';

/** Breakers kept per tool at most (one per host for `http_request`); closed ones go first past it. */
const MAX_KEYS_PER_TOOL = 1000;
/** A key longer than this is cut: it is shown and matched, never parsed. */
const MAX_KEY_LENGTH = 300;

/** The breaker one call goes through: its key (a host, or null for the tool's one breaker). */
export interface CircuitEntry {
  tool: string;
  key: string | null;
  breaker: CircuitBreaker;
}

/** A breaker that is not closed, as the API and the tool page show it. */
export interface CircuitSnapshot {
  key: string | null;
  state: Exclude<CircuitState, 'closed'>;
  /** Epoch ms: when it opened (the last failure that tripped it). */
  openedAt: number;
  /** Epoch ms: when a trial call is (or was) let through. */
  retryAt: number;
  /** Trace ids of the failures in a row that tripped it, oldest first. */
  failures: string[];
  policy: CircuitBreakerPolicy;
}

/**
 * The executor's circuit breakers, one per (tool, key): a tool with `circuitKey` gets one per key
 * its calls name (`http_request`: one per host:port, so a dead port does not block a healthy
 * host), any other tool one in all (key null).
 */
export interface CircuitBreakers {
  /** The breaker a call of `tool` with `input` goes through; null when the tool has none. */
  forCall(tool: AnyTool, input: unknown): CircuitEntry | null;
  /** Forgets a breaker that holds nothing any more (closed, no failures), so hosts seen once do not pile up. */
  settle(entry: CircuitEntry): void;
  /** The worst state of the tool's breakers: open, else half-open, else closed. */
  state(tool: string): CircuitState;
  /** The tool's breakers that are not closed, open ones first. */
  list(tool: string): CircuitSnapshot[];
  /**
   * Closes the tool's breakers (only the one of `key` when given; null names a tool's single
   * breaker) and forgets their failures; returns the keys of those that were not closed.
   */
  reset(tool: string, key?: string | null): (string | null)[];
}

/** The error of a call refused while its breaker is open: which host, since when, when it tries again. */
export function circuitOpenError(entry: CircuitEntry, clock: Clock): ToolErrorData {
  const { tool, key, breaker } = entry;
  const now = clock.now();
  const retryInMs = Math.ceil(breaker.retryInMs(now));
  const retryAt = new Date(clock.epochMs() + retryInMs).toISOString();
  const failures = [...breaker.failures()];
  const what = key === null ? tool : `${tool} to ${key}`;
  const when =
    retryInMs > 0
      ? `the next call goes through as a trial at ${retryAt} (in ${Math.ceil(retryInMs / 1000)} s)`
      : 'a trial call is running now; the next call goes through once it succeeds';
  return errorData(
    'CIRCUIT_OPEN',
    `${what} is paused: its last ${breaker.policy.failureThreshold} calls failed in a row, so it is not being called; ${when}.`,
    {
      hint:
        key === null
          ? 'The tool is failing repeatedly; wait before calling it again.'
          : `${key} is failing repeatedly; wait before calling it again (other hosts are not affected).`,
      details: { tool, key, retryInMs, retryAt, failures },
      stage: 'execute',
    },
  );
}

const STATE_RANK: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/** The key of a call, as `circuitKey` gives it: a bounded string, or null (the tool's single breaker). */
function keyOf(tool: AnyTool, input: unknown): string | null {
  if (!tool.circuitKey) return null;
  try {
    const key = tool.circuitKey(input);
    return typeof key === 'string' && key.length > 0 ? key.slice(0, MAX_KEY_LENGTH) : null;
  } catch {
    return null;
  }
}

export function createCircuitBreakers(clock: Clock): CircuitBreakers {
  const byTool = new Map<string, Map<string | null, CircuitBreaker>>();

  /** Makes room for one more key: drops the oldest closed breaker, else the oldest one. */
  function makeRoom(breakers: Map<string | null, CircuitBreaker>) {
    if (breakers.size < MAX_KEYS_PER_TOOL) return;
    const now = clock.now();
    for (const [key, breaker] of breakers) {
      if (breaker.state(now) === 'closed') {
        breakers.delete(key);
        return;
      }
    }
    const oldest = breakers.keys().next();
    if (!oldest.done) breakers.delete(oldest.value);
  }

  return {
    forCall(tool, input) {
      if (!tool.circuitBreaker) return null;
      const key = keyOf(tool, input);
      let breakers = byTool.get(tool.name);
      if (!breakers) {
        breakers = new Map();
        byTool.set(tool.name, breakers);
      }
      let breaker = breakers.get(key);
      if (!breaker) {
        makeRoom(breakers);
        breaker = createCircuitBreaker(tool.circuitBreaker, () => clock.epochMs());
        breakers.set(key, breaker);
      }
      return { tool: tool.name, key, breaker };
    },
    settle(entry) {
      const breakers = byTool.get(entry.tool);
      if (entry.breaker.idle() && breakers?.get(entry.key) === entry.breaker) breakers.delete(entry.key);
    },
    state(tool) {
      const now = clock.now();
      let worst: CircuitState = 'closed';
      for (const breaker of byTool.get(tool)?.values() ?? []) {
        const state = breaker.state(now);
        if (STATE_RANK[state] > STATE_RANK[worst]) worst = state;
      }
      return worst;
    },
    list(tool) {
      const now = clock.now();
      const open: CircuitSnapshot[] = [];
      for (const [key, breaker] of byTool.get(tool) ?? []) {
        const state = breaker.state(now);
        const openedAt = breaker.openedAtEpoch();
        if (state === 'closed' || openedAt === null) continue;
        open.push({
          key,
          state,
          openedAt,
          retryAt: openedAt + breaker.policy.cooldownMs,
          failures: [...breaker.failures()],
          policy: breaker.policy,
        });
      }
      return open.sort((a, b) => STATE_RANK[b.state] - STATE_RANK[a.state] || b.openedAt - a.openedAt);
    },
    reset(tool, key) {
      const breakers = byTool.get(tool);
      if (!breakers) return [];
      const now = clock.now();
      const reset: (string | null)[] = [];
      for (const [k, breaker] of [...breakers]) {
        if (key !== undefined && k !== key) continue;
        if (breaker.state(now) !== 'closed') reset.push(k);
        breaker.reset();
        breakers.delete(k);
      }
      return reset;
    },
  };
}
