import { comparableOf, judgeCalls } from '../replay/call-verdict';
import { type IgnoredChange, type IgnoreRules, ignoreRules } from '../replay/volatile-paths';
import { formatDuration } from './format';
import { sameJson } from './json-path-diff';
import type { TraceView } from './trace-from-json';

/** One line of the compare view's summary: a field of both calls, and whether it differs. */
export interface CompareRow {
  field: 'status' | 'error' | 'latency' | 'attempts' | 'exit_code' | 'tool' | 'actor' | 'session';
  label: string;
  a: string;
  b: string;
  changed: boolean;
  /** The relative change, for latency: `+120 ms (×2.1)`. */
  delta?: string;
}

export interface CompareVerdict {
  /** Either call is still running or awaiting approval: outcome and output are not judged yet (false). */
  pending: boolean;
  /** Status or error code differ. */
  outcomeChanged: boolean;
  /** The output (volatile paths aside), stdout, stderr or exit code differ (as the session comparison counts it). */
  outputChanged: boolean;
  /** What ran differs (the approver's edit, when there was one, else the arguments). */
  argumentsChanged: boolean;
  /** The output's differences at volatile paths, left out of `outputChanged`. */
  ignored: IgnoredChange[];
}

const DEFAULT_RULES = ignoreRules();

/** The arguments that ran: an approver's edit when there was one, else the call's arguments. */
export const argumentsThatRan = (trace: TraceView): unknown => trace.editedArguments ?? trace.arguments;

const errorText = (trace: TraceView) => (trace.error ? `${trace.error.code}: ${trace.error.message}` : '—');
const attemptsText = (trace: TraceView) => {
  const retries = trace.attempts.filter((a) => !a.fallback).length;
  const fallbacks = trace.attempts.length - retries;
  return `${retries}${fallbacks ? ` + ${fallbacks} fallback${fallbacks === 1 ? '' : 's'}` : ''}`;
};

function latencyDelta(a: number | null, b: number | null): string | undefined {
  if (a === null || b === null) return undefined;
  const diff = b - a;
  const sign = diff > 0 ? '+' : diff < 0 ? '−' : '±';
  const ratio = a > 0 ? ` (×${(b / a).toFixed(b / a >= 10 ? 0 : 1)})` : '';
  return `${sign}${formatDuration(Math.abs(diff))}${ratio}`;
}

/** The summary rows of two calls: status, error, latency (not marked as a change), attempts, exit code, tool, actor, session. */
export function compareRows(a: TraceView, b: TraceView): CompareRow[] {
  const row = (field: CompareRow['field'], label: string, x: string, y: string): CompareRow => ({
    field,
    label,
    a: x,
    b: y,
    changed: x !== y,
  });
  return [
    row('status', 'Status', a.status, b.status),
    row('error', 'Error', errorText(a), errorText(b)),
    {
      field: 'latency',
      label: 'Latency',
      a: formatDuration(a.latencyMs),
      b: formatDuration(b.latencyMs),
      // timings always differ a little: shown with the delta, never flagged as a change
      changed: false,
      delta: latencyDelta(a.latencyMs, b.latencyMs),
    },
    row('attempts', 'Attempts', attemptsText(a), attemptsText(b)),
    row(
      'exit_code',
      'Exit code',
      a.exitCode === null ? '—' : String(a.exitCode),
      b.exitCode === null ? '—' : String(b.exitCode),
    ),
    row('tool', 'Tool', a.tool, b.tool),
    row('actor', 'Actor', a.actor, b.actor),
    row('session', 'Session', a.sessionId ?? '—', b.sessionId ?? '—'),
  ];
}

/**
 * Whether the outcome, the output and the arguments differ between two calls, by the server's
 * rules (`judgeCalls`): pending while either runs, volatile output paths (`rules`) left out.
 */
export function compareVerdict(a: TraceView, b: TraceView, rules: IgnoreRules = DEFAULT_RULES): CompareVerdict {
  const verdict = judgeCalls(comparableOf(a), comparableOf(b), rules);
  return {
    pending: verdict.pending,
    outcomeChanged: verdict.outcome,
    outputChanged: verdict.output,
    argumentsChanged: !sameJson(argumentsThatRan(a), argumentsThatRan(b)),
    ignored: verdict.ignored,
  };
}
